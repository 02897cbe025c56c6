public import Foundation
import Synchronization

/// Where the repository, its samples and the shared test data are, for tests.
public enum TestPaths {
    /// The repository root (the folder holding Package.swift).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared` beside the repository (read-only test data), or `CARDSYNC_SHARED` when set.
    public static let shared: URL = {
        if let override = ProcessInfo.processInfo.environment["CARDSYNC_SHARED"] { return URL(fileURLWithPath: override) }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// The real-world corpus folder.
    public static var corpus: URL { shared.appendingPathComponent("corpus") }

    /// The repository's `Samples/` folder.
    public static var samples: URL { repositoryRoot.appendingPathComponent("Samples") }

    /// Fixtures of a test target: `Tests/<target>/Fixtures`.
    public static func fixtures(_ target: String) -> URL {
        repositoryRoot.appendingPathComponent("Tests").appendingPathComponent(target).appendingPathComponent("Fixtures")
    }

    /// A new, empty temporary directory for one test.
    ///
    /// Every directory made here is removed when the test process exits normally, so a run of the
    /// suite leaves nothing behind in the temporary folder (some tests write books of thousands of
    /// contacts). Set `CARDSYNC_KEEP_TEST_FILES=1` to keep them for a look after a failure.
    public static func makeTemporaryDirectory(_ label: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardsync-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryDirectories.shared.register(url)
        return url
    }
}

/// The temporary directories this test process made, removed at its exit.
private final class TemporaryDirectories: Sendable {
    static let shared = TemporaryDirectories()

    private let made = Mutex<[URL]>([])

    private init() {
        guard ProcessInfo.processInfo.environment["CARDSYNC_KEEP_TEST_FILES"] == nil else { return }
        atexit { TemporaryDirectories.shared.removeAll() }
    }

    func register(_ url: URL) {
        made.withLock { $0.append(url) }
    }

    private func removeAll() {
        let urls = made.withLock { made -> [URL] in
            defer { made.removeAll() }
            return made
        }
        for url in urls { try? FileManager.default.removeItem(at: url) }
    }
}
