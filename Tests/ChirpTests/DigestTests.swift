@testable import Chirp
import HTTP
import Testing

/// The MACs behind access tokens, idempotency fingerprints, cursors and ETags, against
/// published answers (RFC 4231 for HMAC-SHA256, the BLAKE2 reference vectors for keyed
/// BLAKE2b, SipHash's for SipHash-2-4).
@Suite struct DigestTests {
    @Test func aPreparedKeyGivesRFC4231Answers() {
        // Test case 2: a key shorter than a block.
        let jefe = HMACKey(Array("Jefe".utf8))
        #expect(hex(jefe.authenticate(Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than a block, which HMAC hashes first.
        let long = HMACKey([UInt8](repeating: 0xaa, count: 131))
        #expect(hex(long.authenticate(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func aPreparedKeyIsUnchangedByUseAndPartsActAsOneMessage() {
        let key = HMACKey(Array("Jefe".utf8))
        let whole = key.authenticate(Array("what do ya want for nothing?".utf8))
        // The same key again (its prepared state is copied, not consumed), in three parts.
        let parts = key.authenticate(Array("what do ya".utf8), Array(" want for ".utf8), Array("nothing?".utf8))
        #expect(parts == whole)
        #expect(HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)) == whole)
    }

    @Test func keyedBLAKE2bGivesTheReferenceAnswers() {
        // The first keyed answer of BLAKE2's reference test vectors (blake2b-kat.txt).
        #expect(hex(BLAKE2b.mac(key: Array(0..<64), message: [], length: 64))
            == "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568")
        // A cursor-sized tag: the output length is a parameter of the hash, not a truncation.
        #expect(hex(BLAKE2b.mac(key: Array(0..<32), message: Array("chirp".utf8))) == "f548a4e20877a6243278e1d259e5b823")
        #expect(BLAKE2b.mac(key: Array(1..<33), message: Array("chirp".utf8)) != BLAKE2b.mac(key: Array(0..<32), message: Array("chirp".utf8)))
    }

    @Test func sipHash128GivesTheReferenceAnswers() {
        // The first answers of SipHash's reference vectors (vectors_sip128): key 00…0f,
        // messages 00…(n-1).
        #expect(hex(SipHash128.hash(key: Array(0..<16), [])) == "a3817f04ba25a8e66df67214c7550293")
        #expect(hex(SipHash128.hash(key: Array(0..<16), [0])) == "da87c1d86b99af44347659119b22fc45")
    }

    @Test func eTagsAgreeUnderOneSecretAndDifferUnderAnother() {
        let body = Array(#"{"items":[],"hasMore":false}"#.utf8)
        let request = HTTPRequest(method: .GET, path: "/v1/posts")
        func tag(_ secret: String) -> String? {
            ETags(secret: Array(secret.utf8)).respond(to: request, with: .json(200, body)).headers["ETag"]
        }
        let first = tag("one secret, thirty-two bytes long")
        #expect(first != nil && first == tag("one secret, thirty-two bytes long"))
        #expect(first != tag("another secret, also long enough"))
        // A matching If-None-Match gets a 304 that carries the tag and no body.
        let conditional = HTTPRequest(method: .GET, path: "/v1/posts", headers: ["If-None-Match": first ?? ""])
        let notModified = ETags(secret: Array("one secret, thirty-two bytes long".utf8))
            .respond(to: conditional, with: .json(200, body))
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.headers["ETag"] == first)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0x0f, radix: 16) }.joined()
    }
}

extension BLAKE2b {
    /// A `length`-byte tag of `message`, as an array.
    fileprivate static func mac(key: [UInt8], message: [UInt8], length: Int = 16) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        message.withUnsafeBufferPointer { message in
            digest.withUnsafeMutableBufferPointer { mac(key: key, message: message, into: $0) }
        }
        return digest
    }
}
