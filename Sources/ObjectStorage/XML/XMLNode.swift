import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A parsed XML element: its name (without namespace prefix), its text and its children. Enough
/// for the small documents S3 and STS answer with (ListBucketResult, Error, AssumeRole…Response).
package struct XMLNode: Sendable, Equatable {
    /// The element's local name.
    package var name: String
    /// The element's own text (entities and CDATA resolved).
    package var text: String
    /// The child elements, in document order.
    package var children: [XMLNode]

    /// The first child named `name`.
    package func child(_ name: String) -> XMLNode? { children.first { $0.name == name } }

    /// The children named `name`.
    package func children(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    package func text(of name: String) -> String? { child(name)?.text }

    /// Parses a whole document; nil when it is not well-formed XML.
    package static func parse(_ data: Data) -> XMLNode? {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        parser.shouldProcessNamespaces = true
        guard parser.parse(), let root = builder.root else { return nil }
        return root
    }
}

/// Builds the tree from the parser's events (used on one thread, inside ``XMLNode/parse(_:)``).
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XMLNode] = []
    var root: XMLNode?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(XMLNode(name: elementName, text: "", children: []))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?
    ) {
        guard let done = stack.popLast() else { return }
        if stack.isEmpty {
            root = done
        } else {
            stack[stack.count - 1].children.append(done)
        }
    }
}
