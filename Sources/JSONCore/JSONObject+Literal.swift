extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with these members, in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}
