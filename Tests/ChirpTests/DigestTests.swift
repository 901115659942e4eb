@testable import Chirp
import Testing

/// The MACs behind cursors, access tokens and idempotency fingerprints, against RFC 4231's
/// published HMAC-SHA256 answers.
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

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
