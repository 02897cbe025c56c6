import ContactDiff
import Testing
import VCardKit

struct PropertyDiffTests {
    let old = card("VERSION:3.0", "UID:ada", "FN:Ada Lovelace", "N:Lovelace;Ada;;;", "EMAIL;TYPE=INTERNET,WORK:ada@example.com",
                   "TEL;TYPE=CELL:+44 20 7946 0018", "REV:20240101T000000Z")

    @Test func differencesOfFormOnlyAreNoDifferences() {
        // 4.0 spelling, other case, other property order, other folding, other REV.
        let reformatted = card("version:4.0", "tel;type=cell:+44 20 7946 0018", "email;type=work:ada@example.com",
                               "n:Lovelace;Ada", "fn:Ada Love\r\n lace", "uid:ada", "rev:20250101T000000Z")
        #expect(PropertyDiff().changes(from: old, to: reformatted).isEmpty)
    }

    @Test func exactComparisonSeesDifferencesOfForm() {
        let reformatted = card("VERSION:3.0", "UID:ada", "fn:Ada Lovelace", "N:Lovelace;Ada;;;", "EMAIL;TYPE=INTERNET,WORK:ada@example.com",
                               "TEL;TYPE=CELL:+44 20 7946 0018", "REV:20240101T000000Z")
        let changes = PropertyDiff(exact: true).changes(from: old, to: reformatted)
        #expect(changes.map(\.kind) == [.removed, .added])
        #expect(Set(changes.map(\.property)) == ["FN", "fn"])
    }

    @Test func exactComparisonReportsPropertyOrderAsForm() {
        let reordered = card("VERSION:3.0", "FN:Ada Lovelace", "UID:ada", "N:Lovelace;Ada;;;", "EMAIL;TYPE=INTERNET,WORK:ada@example.com",
                             "TEL;TYPE=CELL:+44 20 7946 0018", "REV:20240101T000000Z")
        #expect(PropertyDiff(exact: true).changes(from: old, to: reordered).map(\.kind) == [.form])
    }

    @Test func reportsAddedRemovedChangedValuesAndParameters() {
        let edited = card("VERSION:3.0", "UID:ada", "FN:Ada King", "N:Lovelace;Ada;;;", "EMAIL;TYPE=HOME:ada@example.com",
                          "EMAIL:ada@analytical.org", "REV:20240101T000000Z")
        let changes = PropertyDiff().changes(from: old, to: edited)
        #expect(changes.contains(PropertyChange(kind: .changed, property: "FN", oldValue: "Ada Lovelace", newValue: "Ada King")))
        #expect(changes.contains(PropertyChange(kind: .parameters, property: "EMAIL", oldValue: "ada@example.com", newValue: "ada@example.com",
                                                oldParameters: ["TYPE=work"], newParameters: ["TYPE=home"])))
        #expect(changes.contains(PropertyChange(kind: .added, property: "EMAIL", newValue: "ada@analytical.org")))
        #expect(changes.contains(PropertyChange(kind: .removed, property: "TEL", oldValue: "+442079460018", oldParameters: ["TYPE=cell"])))
        #expect(changes.count == 4)
    }

    @Test func ignoredPropertiesAreNotCompared() {
        let edited = card("VERSION:3.0", "UID:ada", "FN:Ada Lovelace", "N:Lovelace;Ada;;;", "EMAIL;TYPE=INTERNET,WORK:ada@example.com",
                          "TEL;TYPE=CELL:+44 20 7946 0019", "REV:20240101T000000Z")
        #expect(PropertyDiff(ignoring: ["tel"]).changes(from: old, to: edited).isEmpty)
        #expect(PropertyDiff().changes(from: old, to: edited).count == 1)
    }
}

struct ContactSetComparisonTests {
    let old = """
    BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEMAIL:ada@example.com\r\nEND:VCARD\r
    BEGIN:VCARD\r\nVERSION:4.0\r\nUID:charles\r\nFN:Charles Babbage\r\nEMAIL:cb@example.com\r\nEND:VCARD\r
    BEGIN:VCARD\r\nVERSION:4.0\r\nUID:grace\r\nFN:Grace Hopper\r\nTEL:+1 312 555 0142\r\nEND:VCARD\r
    BEGIN:VCARD\r\nVERSION:4.0\r\nUID:alan\r\nFN:Alan Turing\r\nEND:VCARD\r

    """

    @Test func pairsByUIDThenContentThenIdentityAndSaysHow() {
        let new = """
        BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ada\r\nFN:Ada Lovelace\r\nEMAIL:ada@example.com\r\nEND:VCARD\r
        BEGIN:VCARD\r\nVERSION:4.0\r\nUID:cb-2\r\nFN:Charles Babbage\r\nEMAIL:cb@example.com\r\nEND:VCARD\r
        BEGIN:VCARD\r\nVERSION:4.0\r\nUID:gh-2\r\nFN:HOPPER Grace\r\nTEL:(312) 555-0142\r\nNOTE:new phone book\r\nEND:VCARD\r
        BEGIN:VCARD\r\nVERSION:4.0\r\nUID:edsger\r\nFN:Edsger Dijkstra\r\nEND:VCARD\r

        """
        let difference = ContactSetComparison().compare(entries(old), entries(new))
        #expect(difference.summary == DiffSummary(added: 1, removed: 1, changed: 1, unchanged: 2))
        let byName = Dictionary(uniqueKeysWithValues: difference.contacts.map { ($0.name, $0) })
        #expect(byName["Charles Babbage"]?.match == .content)
        #expect(byName["Charles Babbage"]?.status == .unchanged)
        #expect(byName["HOPPER Grace"]?.match == .identity)
        #expect(byName["HOPPER Grace"]?.changes.map(\.property) == ["FN", "NOTE", "TEL"])
        #expect(byName["Alan Turing"]?.status == .removed)
        #expect(byName["Edsger Dijkstra"]?.status == .added)
        #expect(byName["Ada Lovelace"] == nil, "contacts paired by UID and unchanged are only counted")
    }

    @Test func uidMatchingAloneReportsANewUIDAsRemovedAndAdded() {
        let new = old.replacingOccurrences(of: "UID:charles", with: "UID:cb-2")
        let difference = ContactSetComparison(strategy: .uid).compare(entries(old), entries(new))
        #expect(difference.summary == DiffSummary(added: 1, removed: 1, changed: 0, unchanged: 3))
    }

    @Test func identicalTextIsPairedWithoutParsing() {
        let set = ContactSetReader.read(bytes: Array(old.utf8), name: "old.vcf")
        let difference = ContactSetComparison().compare(set, set)
        #expect(difference.summary == DiffSummary(unchanged: 4))
        #expect(!difference.hasDifferences)
    }
}
