import ContactStore
import Foundation
import Testing
import TestSupport

/// `.cardsync/remote.json`: what `cardsync remote set` saves is what a sync loads; a file an
/// earlier cardsync wrote still loads; a damaged one is refused with what is wrong and how to
/// set the remote again.
@Suite struct RemoteSettingsTests {
    private func settingsFile(of book: URL) -> URL {
        book.appendingPathComponent(".cardsync/remote.json")
    }

    @Test func savedSettingsLoadAsTheyWereSaved() throws {
        let book = try makeBook()
        #expect(try RemoteSettings.load(book: book) == nil)
        let settings = RemoteSettings(url: "https://ann@couch.example:6984/contacts", passwordFile: "/home/ann/.couch-pass", insecure: true)
        try RemoteSettings.save(settings, book: book)
        #expect(try RemoteSettings.load(book: book) == settings)
        try RemoteSettings.save(RemoteSettings(url: "http://127.0.0.1:5984/c"), book: book)
        #expect(try RemoteSettings.load(book: book) == RemoteSettings(url: "http://127.0.0.1:5984/c"))
        try RemoteSettings.save(nil, book: book)
        #expect(try RemoteSettings.load(book: book) == nil)
    }

    @Test func aFileWrittenByFoundationsEncoderLoads() throws {
        let book = try makeBook()
        // As JSONEncoder wrote it with pretty printing and sorted keys (the form saved so far).
        let text = "{\n  \"insecure\" : false,\n  \"passwordFile\" : \"\\/run\\/secrets\\/couch\",\n  \"url\" : \"http:\\/\\/admin@127.0.0.1:5984\\/contacts\"\n}\n"
        try Data(text.utf8).write(to: settingsFile(of: book))
        #expect(try RemoteSettings.load(book: book)
            == RemoteSettings(url: "http://admin@127.0.0.1:5984/contacts", passwordFile: "/run/secrets/couch", insecure: false))
    }

    @Test(arguments: [
        ("{\"url\": 5, \"insecure\": false}", "`url` is missing or not a string"),
        ("{\"insecure\": false}", "`url` is missing or not a string"),
        ("{\"url\": \"http://h/db\", \"insecure\": \"yes\"}", "`insecure` is not true or false"),
        ("{\"url\": \"http://h/db\", \"passwordFile\": [], \"insecure\": false}", "`passwordFile` is not a string"),
        ("[\"http://h/db\"]", "not a JSON object"),
        ("{\"url\": \"http://h/db\"", "is damaged (1:"),
    ])
    func aDamagedFileIsRefusedWithWhatIsWrongAndHowToSetTheRemoteAgain(text: String, reason: String) throws {
        let book = try makeBook()
        try Data(text.utf8).write(to: settingsFile(of: book))
        let error = try #require(throws: ContactStoreError.self) { try RemoteSettings.load(book: book) }
        #expect(error.code == .invalidInput)
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.message.contains("cardsync remote \(book.path) set URL"))
        #expect(error.path?.hasSuffix("/.cardsync/remote.json") == true)
    }
}
