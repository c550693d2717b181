import Foundation
import NIOCore
import NIOEmbedded
import SystemTLS
import TestSupport
import Testing

/// SystemTLS's handler and context, client against server on embedded channels with
/// certificates made at test time: the handshake, plaintext both ways, the failures that say
/// what went wrong, `close_notify`, writes held until the handshake ends, and reads with
/// `autoRead` off.
@Suite final class TLSHandlerTests {
    let dir: String
    let pki: TLSTestPKI
    init() throws {
        dir = try makeTempDir()
        pki = try TLSTestPKI(dir: dir)
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    private func server(clientCA: Bool = false) throws -> TLSContext {
        try TLSContext.server(
            certificateFile: pki.serverCertFile, privateKeyFile: pki.serverKeyFile, clientCAFile: clientCA ? pki.caFile : nil)
    }

    private func client(ca: String? = nil, withCertificate: Bool = false) throws -> TLSContext {
        try TLSContext.client(
            systemRoots: false, caFile: ca ?? pki.caFile, certificateFile: withCertificate ? pki.clientCertFile : nil,
            privateKeyFile: withCertificate ? pki.clientKeyFile : nil)
    }

    @Test func aTrustedServerCompletesTheHandshakeAndPlaintextFlowsBothWays() throws {
        let pair = try TLSPair(client: client(), server: server())
        #expect(pair.clientEnd.handshakes == 1)
        #expect(pair.serverEnd.handshakes == 1)
        TLSPair.send("hello", on: pair.client)
        try pair.shuttle()
        TLSPair.send("world", on: pair.server)
        try pair.shuttle()
        #expect(pair.serverEnd.text == "hello")
        #expect(pair.clientEnd.text == "world")
        #expect(pair.clientEnd.errors.isEmpty && pair.serverEnd.errors.isEmpty)
    }

    @Test func anAddressIsCheckedAgainstTheCertificatesAddresses() throws {
        let pair = try TLSPair(client: client(), server: server(), host: "127.0.0.1")
        #expect(pair.clientEnd.handshakes == 1)
        let wrong = try TLSPair(client: client(), server: server(), host: "127.0.0.2")
        #expect(wrong.clientEnd.tlsFailure == .wrongHost, "\(wrong.clientEnd.errors)")
    }

    @Test func aCertificateForAnotherNameIsTheWrongHost() throws {
        let pair = try TLSPair(client: client(), server: server(), host: "ingest.example.com")
        #expect(pair.clientEnd.handshakes == 0)
        #expect(pair.clientEnd.tlsFailure == .wrongHost, "\(pair.clientEnd.errors)")
        #expect(!pair.client.isActive, "a failed handshake closes the connection")
    }

    @Test func aCertificateFromAnotherCAIsUntrusted() throws {
        let pair = try TLSPair(client: client(ca: pki.otherCAFile), server: server())
        #expect(pair.clientEnd.tlsFailure == .untrusted, "\(pair.clientEnd.errors)")
        #expect(pair.serverEnd.handshakes == 0)
    }

    @Test func aServerWantingAClientCertificateRefusesAClientWithout() throws {
        let refused = try TLSPair(client: client(), server: server(clientCA: true))
        // TLS 1.3: the client's handshake ends before the server refuses; the alert comes next.
        TLSPair.send("hello", on: refused.client)
        try refused.shuttle()
        #expect(refused.clientEnd.tlsFailure == .refused, "\(refused.clientEnd.errors)")
        #expect(refused.serverEnd.text.isEmpty)

        let accepted = try TLSPair(client: client(withCertificate: true), server: server(clientCA: true))
        TLSPair.send("hello", on: accepted.client)
        try accepted.shuttle()
        #expect(accepted.serverEnd.text == "hello")
    }

    @Test func writesBeforeTheHandshakeWaitForIt() throws {
        let clientChannel = EmbeddedChannel()
        let serverChannel = EmbeddedChannel()
        let serverEnd = Recorder()
        try clientChannel.pipeline.syncOperations.addHandler(TLSHandler(client: client(), host: "localhost"))
        try serverChannel.pipeline.syncOperations.addHandlers([TLSHandler(server: server()), serverEnd])
        TLSPair.send("early", on: clientChannel)  // not active yet: held
        try serverChannel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try clientChannel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
        for _ in 0..<6 {
            while let bytes = try clientChannel.readOutbound(as: ByteBuffer.self) { try serverChannel.writeInbound(bytes) }
            while let bytes = try serverChannel.readOutbound(as: ByteBuffer.self) { try clientChannel.writeInbound(bytes) }
        }
        #expect(serverEnd.text == "early")
    }

    @Test func closingSendsCloseNotifyAndThePeerCloses() throws {
        let pair = try TLSPair(client: client(), server: server())
        pair.client.close(promise: nil)
        try pair.shuttle()
        #expect(pair.serverEnd.inactive, "the server closed on the client's close_notify")
        #expect(pair.serverEnd.errors.isEmpty)
    }

    @Test func withAutoReadOffAReadThatBringsPartOfARecordAsksForMore() throws {
        let pair = try TLSPair(client: client(), server: server())
        let counter = ReadCounter()
        try pair.client.pipeline.syncOperations.addHandler(counter, position: .first)
        TLSPair.send(String(repeating: "x", count: 4000), on: pair.server)
        guard var record = try pair.server.readOutbound(as: ByteBuffer.self) else { Issue.record("no record"); return }
        let firstHalf = record.readSlice(length: record.readableBytes / 2)!
        pair.client.pipeline.read()  // the application asks for one read
        #expect(counter.reads == 1)
        try pair.client.writeInbound(firstHalf)  // part of a record: no plaintext yet
        #expect(counter.reads == 2, "the TLS handler asked the socket for the rest")
        #expect(pair.clientEnd.text.isEmpty)
        try pair.client.writeInbound(record)
        #expect(pair.clientEnd.text.count == 4000)
        #expect(counter.reads == 2, "plaintext came: the application decides about the next read")
    }

    @Test func aReadAskedForWhileHandlingPlaintextIsKeptUntilPlaintextAnswersIt() throws {
        let pair = try TLSPair(client: client(), server: server())
        let counter = ReadCounter()
        try pair.client.pipeline.syncOperations.addHandler(counter, position: .first)
        try pair.client.pipeline.syncOperations.addHandler(
            AsksAgain(), position: .after(pair.client.pipeline.syncOperations.handler(type: TLSHandler.self)))
        TLSPair.send("first", on: pair.server)
        TLSPair.send(String(repeating: "y", count: 4000), on: pair.server)
        guard let first = try pair.server.readOutbound(as: ByteBuffer.self), var second = try pair.server.readOutbound(as: ByteBuffer.self)
        else { Issue.record("no records"); return }
        try pair.client.writeInbound(first)  // plaintext: the handler after TLS asks for the next read
        let afterFirst = counter.reads
        try pair.client.writeInbound(second.readSlice(length: second.readableBytes / 2)!)  // part of a record
        #expect(counter.reads > afterFirst, "the read asked for while handling plaintext is still owed: ask the socket again")
        try pair.client.writeInbound(second)
        #expect(pair.clientEnd.text == "first" + String(repeating: "y", count: 4000))
    }

    @Test func anEmptyWriteCompletesAfterTheWritesBeforeIt() throws {
        let pair = try TLSPair(client: client(), server: server())
        let first = Completion(pair.client.eventLoop)
        let empty = Completion(pair.client.eventLoop)
        pair.client.write(ByteBuffer(string: "head"), promise: first.promise)
        pair.client.write(ByteBuffer(), promise: empty.promise)  // NIO's HTTP encoder writes one for `.end`
        #expect(!empty.done, "not before the write it follows")
        pair.client.flush()
        #expect(first.done && empty.done)
        try pair.shuttle()
        #expect(pair.serverEnd.text == "head")
    }

    @Test func unusableFilesNameTheirRole() throws {
        let noCertificates = dir + "/empty.pem"
        try "not a certificate\n".write(toFile: noCertificates, atomically: true, encoding: .utf8)
        #expect(throws: TLSSetupError.self) { try TLSContext.client(systemRoots: false, caFile: noCertificates) }
        func role(_ body: () throws -> TLSContext) -> TLSSetupError.Role? {
            do {
                _ = try body()
                return nil
            } catch let error as TLSSetupError {
                return error.role
            } catch {
                return nil
            }
        }
        #expect(role { try TLSContext.client(systemRoots: false, caFile: noCertificates) } == .caFile)
        #expect(role { try TLSContext.server(certificateFile: pki.serverCertFile, privateKeyFile: pki.caFile) } == .privateKey)
        #expect(role { try TLSContext.server(certificateFile: noCertificates, privateKeyFile: pki.serverKeyFile) } == .certificate)
        #expect(role { try TLSContext.server(certificateFile: pki.serverCertFile, privateKeyFile: pki.clientKeyFile) } == .keyMismatch)
        #expect(role { try TLSContext.server(certificateFile: pki.serverCertFile, privateKeyFile: pki.serverKeyFile) } == nil)
    }
}
