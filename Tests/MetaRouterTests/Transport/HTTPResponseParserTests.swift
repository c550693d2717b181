import MetaRouter
import NIOCore
import Testing

@testable import MetaRouterDelivery

/// The lean transport's answer reader: framing, keep-alive, interim answers, malformed answers,
/// and the same result however the bytes are cut.
@Suite struct HTTPResponseParserTests {
    typealias Answer = HTTPResponseParser.Answer

    /// Feeds `text` in pieces of `piece` bytes; returns the answers and the bytes left after the
    /// last one, or the error.
    static func parse(_ text: String, piece: Int = .max, closeAtEnd: Bool = false) -> Result<([Answer], Int), HTTPResponseParser.Malformed> {
        var parser = HTTPResponseParser()
        var answers: [Answer] = []
        let bytes = Array(text.utf8)
        var left = 0
        do throws(HTTPResponseParser.Malformed) {
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + min(piece, bytes.count))
                var buffer = ByteBuffer(bytes: bytes[start..<end])
                while buffer.readableBytes > 0, let answer = try parser.read(&buffer) { answers.append(answer) }
                left = buffer.readableBytes
                start = end
            }
            if closeAtEnd, let answer = try parser.connectionClosed() { answers.append(answer) }
        } catch {
            return .failure(error)
        }
        return .success((answers, left))
    }

    static func field(_ name: String, _ value: String) -> HTTPResponseParser.HTTPField { .init(name: name, value: value) }

    @Test func aContentLengthAnswerWithHeaders() throws {
        let text = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: 5\r\nX-A:  b \r\n\r\nhello"
        let (answers, _) = try Self.parse(text).get()
        #expect(
            answers == [
                Answer(
                    status: 429, headers: [Self.field("Retry-After", "7"), Self.field("Content-Length", "5"), Self.field("X-A", "b")], keepAlive: true
                )
            ])
    }

    /// Every way of cutting two answers in a row gives the same two answers.
    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Length: 1\r\n\r\nx",
        "HTTP/1.1 200 OK\nContent-Length: 1\n\nxHTTP/1.1 400 Bad Request\nContent-Length: 0\n\n",
    ])
    func theSameAnswersHoweverTheBytesAreCut(text: String) throws {
        for piece in 1...text.utf8.count {
            let (answers, left) = try Self.parse(text, piece: piece).get()
            #expect(answers.map(\.status) == [200, 400], "pieces of \(piece)")
            #expect(answers.allSatisfy(\.keepAlive) && left == 0, "pieces of \(piece)")
        }
    }

    @Test func bytesAfterAnAnswerAreLeftForTheCaller() throws {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer(string: "HTTP/1.1 204 No Content\r\n\r\nextra")
        let answer = try parser.read(&buffer)
        #expect(answer?.status == 204)
        #expect(buffer.readableBytes == 5)
        #expect(parser.isIdle)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
    ])
    func keepAlive(text: String, keepAlive: Bool) throws {
        let (answers, _) = try Self.parse(text).get()
        #expect(answers.first?.keepAlive == keepAlive)
    }

    /// Without a length, the body runs to the close; the answer ends there and the connection
    /// is not reused.
    @Test func aBodyToTheClose() throws {
        let text = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\r\nno length here"
        let (open, _) = try Self.parse(text).get()
        #expect(open.isEmpty)
        let (closed, _) = try Self.parse(text, closeAtEnd: true).get()
        #expect(closed.map(\.status) == [503] && closed.first?.keepAlive == false)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "the connection closed in the middle of an answer"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "the connection closed in the middle of an answer"),
    ])
    func aCloseInTheMiddleOfAnAnswer(text: String, message: String) {
        #expect(throws: HTTPResponseParser.Malformed(message)) { try Self.parse(text, closeAtEnd: true).get() }
    }

    @Test(arguments: [
        "SMTP 220 hello\r\n\r\n",
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 200 OK\r\n folded: no\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Name: v\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n",
    ])
    func malformedAnswersAreRefused(text: String) {
        #expect(throws: HTTPResponseParser.Malformed.self) { try Self.parse(text).get() }
    }

    @Test func repeatedEqualContentLengthsAreOneLength() throws {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nokX")
        #expect(try parser.read(&buffer)?.status == 200)
        #expect(buffer.readableBytes == 1)
    }

    @Test func anOverlongHeadIsRefused() {
        let text = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: HTTPResponseParser.maxHeadBytes) + "\r\n\r\n"
        #expect(throws: HTTPResponseParser.Malformed.self) { try Self.parse(text, piece: 4096).get() }
    }
}
