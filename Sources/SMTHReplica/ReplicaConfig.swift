import Foundation

/// The knobs of a generated forum. Two forums built from equal configs are
/// identical down to the byte, which is what lets tests compare an archive
/// against `ReplicaForum.groundTruth()` and lets two runs be diffed.
public struct ReplicaConfig: Sendable {
    /// Seeds every random choice; boards derive their own streams from it.
    public var seed: UInt64
    /// Number of sections (分区), coded "0", "1", ...
    public var sections: Int
    /// Boards in each section.
    public var boardsPerSection: Int
    /// Threads on every board, sticky ones included.
    public var threadsPerBoard: Int
    /// Upper bound of visible posts in one thread.
    public var maxPostsPerThread: Int
    /// The moment the forum is "generated at": every post lies before it,
    /// and "today" for the generator is this instant's Beijing calendar day.
    public var now: Date
    /// Boards kept generated at once; nil: `ReplicaForum.cachedBoards`'s
    /// rule. Changes memory and speed only, never a byte served.
    public var cachedBoards: Int?

    public init(
        seed: UInt64 = 1,
        sections: Int = 2,
        boardsPerSection: Int = 2,
        threadsPerBoard: Int = 45,
        maxPostsPerThread: Int = 25,
        now: Date = Date(),
        cachedBoards: Int? = nil
    ) {
        self.seed = seed
        self.sections = sections
        self.boardsPerSection = boardsPerSection
        self.threadsPerBoard = threadsPerBoard
        self.maxPostsPerThread = maxPostsPerThread
        self.now = now
        self.cachedBoards = cachedBoards
    }
}
