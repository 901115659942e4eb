@testable import Chirp
import Testing

/// `PrimaryPositions`: a replica's lag, in time, from samples of the primary's write position.
@Suite struct ReplicationLagTests {
    let start = ContinuousClock.now

    private func positions(_ samples: [(milliseconds: Int, position: UInt64)]) -> PrimaryPositions {
        var positions = PrimaryPositions(window: .seconds(10))
        for sample in samples { positions.record(sample.position, at: start + .milliseconds(sample.milliseconds)) }
        return positions
    }

    @Test func aReplicaThatHasReplayedTheLatestSampleHasNoLag() {
        let sampled = positions([(0, 100), (250, 200), (500, 300)])
        #expect(sampled.lag(ofReplayed: 300, at: start + .milliseconds(600)) == .zero)
        #expect(sampled.lag(ofReplayed: 350, at: start + .milliseconds(600)) == .zero)
    }

    @Test func lagIsTheTimeSinceTheFirstWriteTheReplicaLacks() {
        let sampled = positions([(0, 100), (250, 200), (500, 300)])
        // It has 200 but not 300: the primary had written past it by 500 ms.
        #expect(sampled.lag(ofReplayed: 250, at: start + .milliseconds(900)) == .milliseconds(400))
        #expect(sampled.lag(ofReplayed: 150, at: start + .milliseconds(900)) == .milliseconds(650))
    }

    @Test func samplesOlderThanTheWindowAreDropped() {
        let sampled = positions([(0, 100), (5_000, 200), (12_000, 300)])
        // The 0 ms sample is gone: a replica at 50 is at least as far behind as the oldest kept.
        #expect(sampled.lag(ofReplayed: 50, at: start + .milliseconds(12_000)) == .milliseconds(7_000))
        #expect(PrimaryPositions().lag(ofReplayed: 0, at: start) == nil)
    }

    @Test func positionsAreReadAsPostgreSQLWritesThem() {
        #expect(PrimaryPositions.position("0/0") == 0)
        #expect(PrimaryPositions.position("16/B374D848") == 0x16_B374_D848)
        #expect(PrimaryPositions.position("FFFFFFFF/FFFFFFFF") == UInt64.max)
        for invalid in ["", "16", "16/", "/1", "G/1", "1/2/3", "100000000/0"] {
            #expect(PrimaryPositions.position(invalid) == nil, "\(invalid)")
        }
    }
}
