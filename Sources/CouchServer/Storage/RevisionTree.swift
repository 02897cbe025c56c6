/// Where a revision's body is stored: a byte range of the database journal.
struct BodyLocation: Sendable, Hashable {
    var offset: Int
    var length: Int
}

/// The revisions of one document: every known revision, its parent, whether it is a tombstone,
/// and where its body is (ancestors learnt from a replicator's `_revisions` have none).
struct RevisionTree: Sendable {
    struct Node: Sendable {
        var parent: Revision?
        var isDeleted: Bool
        var body: BodyLocation?
    }

    private(set) var nodes: [Revision: Node] = [:]
    private(set) var leaves: Set<Revision> = []

    /// Every revision the tree holds, in no particular order.
    var allRevisions: Dictionary<Revision, Node>.Keys { nodes.keys }

    /// Whether the tree holds `revision`.
    func contains(_ revision: Revision) -> Bool { nodes[revision] != nil }

    /// The node of `revision`.
    subscript(revision: Revision) -> Node? { nodes[revision] }

    /// Merges a path of revisions, newest first, each the parent of the one before; the newest
    /// gets `isDeleted` and `body`. Returns whether the newest revision was new to the tree.
    @discardableResult
    mutating func merge(path: [Revision], isDeleted: Bool, body: BodyLocation?) -> Bool {
        guard let head = path.first else { return false }
        if nodes[head] != nil { return false }
        // Oldest first, so parents exist before their children.
        for position in stride(from: path.count - 1, through: 0, by: -1) {
            let revision = path[position]
            let parent = position + 1 < path.count ? path[position + 1] : nil
            if var existing = nodes[revision] {
                if existing.parent == nil, let parent {
                    existing.parent = parent
                    nodes[revision] = existing
                    leaves.remove(parent)
                }
                continue
            }
            let isHead = position == 0
            nodes[revision] = Node(parent: parent, isDeleted: isHead ? isDeleted : false, body: isHead ? body : nil)
            if let parent { leaves.remove(parent) }
            if isHead { leaves.insert(revision) }
        }
        return true
    }

    /// Keeps only the newest `limit` revisions of every branch (CouchDB's `revs_limit`).
    mutating func stem(limit: Int) {
        guard nodes.count > limit else { return }
        var keep: Set<Revision> = []
        for leaf in leaves {
            var current: Revision? = leaf
            var count = 0
            while let revision = current, count < limit {
                keep.insert(revision)
                current = nodes[revision]?.parent
                count += 1
            }
        }
        guard keep.count < nodes.count else { return }
        nodes = nodes.filter { keep.contains($0.key) }
        for (revision, node) in nodes {
            if let parent = node.parent, !keep.contains(parent) {
                nodes[revision]?.parent = nil
            }
        }
    }

    /// Removes the leaf `revision` and the ancestors no other branch shares (CouchDB's purge).
    /// Returns whether `revision` was a leaf.
    mutating func removeLeaf(_ revision: Revision) -> Bool {
        guard leaves.contains(revision) else { return false }
        leaves.remove(revision)
        var current: Revision? = revision
        while let removing = current, let node = nodes[removing] {
            nodes[removing] = nil
            guard let parent = node.parent, nodes[parent] != nil else { break }
            if nodes.values.contains(where: { $0.parent == parent }) { break }
            current = parent
        }
        return true
    }

    /// Leaves in CouchDB's order: live before deleted, then highest generation, then highest hash.
    /// The first is the winning revision.
    var sortedLeaves: [Revision] {
        leaves.sorted { lhs, rhs in
            let lhsDeleted = nodes[lhs]?.isDeleted ?? false
            let rhsDeleted = nodes[rhs]?.isDeleted ?? false
            if lhsDeleted != rhsDeleted { return !lhsDeleted }
            return rhs < lhs
        }
    }

    /// The winning revision: CouchDB's rule (not deleted, then highest generation, then highest id).
    var winner: Revision? {
        var best: Revision?
        var bestDeleted = true
        for leaf in leaves {
            let deleted = nodes[leaf]?.isDeleted ?? false
            guard let current = best else {
                best = leaf
                bestDeleted = deleted
                continue
            }
            if (bestDeleted && !deleted) || (bestDeleted == deleted && current < leaf) {
                best = leaf
                bestDeleted = deleted
            }
        }
        return best
    }

    /// `revision` and its ancestors, newest first, as far as the tree knows them.
    func ancestry(of revision: Revision) -> [Revision] {
        var result: [Revision] = []
        var current: Revision? = revision
        while let next = current, let node = nodes[next] {
            result.append(next)
            current = node.parent
        }
        return result
    }

    /// Leaves that descend from `revision` (itself when it is a leaf).
    func leaves(descendingFrom revision: Revision) -> [Revision] {
        leaves.filter { ancestry(of: $0).contains(revision) }.sorted()
    }
}
