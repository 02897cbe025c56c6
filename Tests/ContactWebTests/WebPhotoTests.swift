import ContactStore
@testable import ContactWeb
import Foundation
import Testing
import TestSupport
import VCardKit

/// Photos in the list are links to `/photo?uid=…`, served from the card when asked, so that
/// neither the list page nor `.cardsync/web-list.bin` carries thousands of photos; only raster
/// formats are served (an SVG is a document that can hold scripts).
@Suite struct WebPhotoTests {
    static let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    @Test func theListLinksToThePhotoWhichIsServedFromTheCard() async throws {
        try await withWebServer(fixtures: ["photo-png.vcf", "photo-svg.vcf"]) { web in
            let list = try await web.get("/")
            #expect(list.body.contains("<img class=\"thumb\" src=\"/photo?uid=photo-png-0001\" alt=\"\">"))
            #expect(!list.body.contains("base64"))
            let photo = try await web.get("/photo?uid=photo-png-0001")
            #expect(photo.status == 200)
            #expect(photo.header("Content-Type") == "image/png")
            let bytes = try #require(Base64.decode(Self.png))
            #expect(photo.header("Content-Length") == String(bytes.count))
            #expect(photo.body == String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func anSVGPhotoIsNeitherListedNorServed() async throws {
        try await withWebServer(fixtures: ["photo-svg.vcf"]) { web in
            let list = try await web.get("/")
            #expect(list.body.contains("Vector Person"))
            #expect(!list.body.contains("/photo?uid=photo-svg-0002"))
            let photo = try await web.get("/photo?uid=photo-svg-0002")
            #expect(photo.status == 404)
            #expect(photo.body.contains("no photo in a format the pages show"))
            #expect(try await web.get("/photo?uid=nobody-0000").status == 404)
        }
    }

    @Test func theListCacheKeepsThePhotosTypeNotThePhoto() throws {
        let card = try #require(try VCardReader.read(Array(try Data(contentsOf: TestPaths.fixtures("ContactWebTests").appendingPathComponent("photo-png.vcf"))), sourceName: "photo-png.vcf").cards.first)
        let entry = ContactListEntry(uid: "photo-png-0001", card: card)
        #expect(entry.photoType == "image/png")
        let encoded = ContactListCache.encode([ContactListCache.Item(hash: ContentHash(of: card), entry: entry)])
        #expect(!String(decoding: encoded, as: UTF8.self).contains("iVBOR"))
        #expect(ContactListCache.decode(encoded)?["photo-png-0001"]?.entry.photoType == "image/png")
    }
}
