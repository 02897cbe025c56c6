import ContactDiff
import SampleGenerator
import Testing
import VCardKit

/// The acceptance workloads on generated books whose answer keys are known.
struct GeneratedBookTests {
    @Test func diffReportsExactlyTheLabelledChangesOfATenThousandCardPair() {
        let pair = DiffPairGenerator(count: 10_000, seed: 7, photoRate: 0.02, changeRate: 0.01)
        var oldBytes: [UInt8] = []
        var newBytes: [UInt8] = []
        let labels = pair.write(old: &oldBytes, new: &newBytes)
        #expect(labels.edited.count > 50 && labels.reformatted.count > 50 && labels.uidChanged.count > 50 && labels.removed.count > 50)
        let old = ContactSetReader.read(bytes: oldBytes, name: "old.vcf")
        let new = ContactSetReader.read(bytes: newBytes, name: "new.vcf")
        let difference = ContactSetComparison().compare(old, new)

        #expect(difference.summary == DiffSummary(
            added: labels.added.count, removed: labels.removed.count, changed: labels.edited.count,
            unchanged: labels.oldCount - labels.removed.count - labels.edited.count))
        let added = Set(difference.contacts.filter { $0.status == .added }.compactMap(\.newUID))
        let removed = Set(difference.contacts.filter { $0.status == .removed }.compactMap(\.oldUID))
        #expect(added.symmetricDifference(labels.added).sorted().prefix(5) == [])
        #expect(removed.symmetricDifference(labels.removed).sorted().prefix(5) == [])
        let changed = difference.contacts.filter { $0.status == .changed }
        let expectedEdits = Dictionary(uniqueKeysWithValues: labels.edited.map { ($0.uid, $0) })
        for contact in changed {
            guard let label = contact.newUID.flatMap({ expectedEdits[$0] }) else {
                Issue.record("\(contact.name) <\(contact.newUID ?? "")> is reported changed but was not edited: \(contact.changes)")
                continue
            }
            #expect(contact.match == .uid)
            #expect(contact.changes.map(\.property) == [label.property], "\(contact.name)")
            #expect(contact.changes.map(\.kind.rawValue) == [label.change], "\(contact.name)")
        }
        let renamed = difference.contacts.filter { $0.status == .unchanged && $0.match == .content }
        #expect(Set(renamed.compactMap(\.newUID)).symmetricDifference(labels.uidChanged.map(\.new)).sorted().prefix(5) == [])
        #expect(difference.contacts.filter { $0.match == .identity }.map(\.name).prefix(5) == [])
    }

    @Test func duplicatesFindsNearDuplicatesAndNeverLinksLookAlikes() {
        var options = GeneratorOptions(count: 10_000, seed: 11, photoRate: 0)
        options.duplicateRate = 0.04
        options.nearDuplicateRate = 0.08
        let generator = AddressBookGenerator(options: options)
        var bytes: [UInt8] = []
        let labels = generator.write(to: &bytes)
        // As `cardsync duplicates` reads them: only the properties the finder uses.
        let entries = ContactSetReader.read(bytes: bytes, name: "book.vcf").parsed(selecting: DuplicateFinder.propertiesRead)
        #expect(entries.count == 10_000)
        let clusters = DuplicateFinder().clusters(in: entries)

        // Truth: cards of one person are those linked by exact, reformatted and near labels.
        var person = Array(0..<entries.count)
        func root(_ index: Int) -> Int { person[index] == index ? index : root(person[index]) }
        for label in labels.cards where label.kind != .lookalike { person[root(label.index)] = root(label.of) }
        var predicted = Set<Pair>()
        for cluster in clusters {
            for (position, first) in cluster.members.enumerated() {
                for second in cluster.members[(position + 1)...] { predicted.insert(Pair(first, second)) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for index in entries.indices { groups[root(index), default: []].append(index) }
        var actual = Set<Pair>()
        for members in groups.values where members.count > 1 {
            for (position, first) in members.enumerated() {
                for second in members[(position + 1)...] { actual.insert(Pair(first, second)) }
            }
        }
        let truePositives = predicted.intersection(actual).count
        let precision = Double(truePositives) / Double(max(predicted.count, 1))
        let recall = Double(truePositives) / Double(max(actual.count, 1))
        print("duplicates on \(entries.count) generated cards (\(labels.exact) exact, \(labels.reformatted) reformatted, "
              + "\(labels.near) near duplicates, \(labels.lookalike) look-alikes), threshold \(DuplicateFinder.defaultThreshold): "
              + "\(actual.count) duplicate pairs, \(predicted.count) predicted, \(truePositives) right; "
              + "precision \(String(format: "%.4f", precision)), recall \(String(format: "%.4f", recall))")
        #expect(precision >= 0.99)
        #expect(recall >= 0.95)
        let linkedLookalikes = labels.cards.filter { $0.kind == .lookalike && predicted.contains(Pair($0.index, $0.of)) }
        #expect(linkedLookalikes.map(\.index).prefix(5) == [], "look-alikes linked to the person whose name they share")
        let reasons = Dictionary(clusters.flatMap(\.links).map { (Pair($0.first, $0.second), $0.reasons) }, uniquingKeysWith: { a, _ in a })
        for pair in predicted.subtracting(actual).prefix(12) {
            print("false link: \(entries[pair.first].displayName) ~ \(entries[pair.second].displayName): \(reasons[pair] ?? ["via cluster"])")
        }
        for pair in actual.subtracting(predicted).prefix(5) {
            print("missed: \(entries[pair.first].displayName) ~ \(entries[pair.second].displayName)")
        }
    }

    struct Pair: Hashable {
        var first: Int
        var second: Int
        init(_ a: Int, _ b: Int) { first = min(a, b); second = max(a, b) }
    }
}
