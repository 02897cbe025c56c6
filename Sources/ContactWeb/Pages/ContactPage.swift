import ContactStore
import VCardKit

/// One contact: every property (X- and unknown ones too), grouped properties under their
/// group's label, parameters in words, the photo, and the raw vCard behind a toggle.
struct ContactPage: Sendable {
    var file: ContactFile

    func render(layout: PageLayout, notice: Notice?) -> String {
        let card = file.card
        let uid = file.record.uid
        let title = card.formattedName ?? file.record.name ?? uid
        var html = "<article class=\"contact\">\n<h1>\(HTML.escape(title))</h1>\n"
        if let photo = card.photo {
            html += Self.photo(photo)
        }
        html += "<p class=\"actions\"><a class=\"button\" href=\"\(HTML.link("/contact/edit", [("uid", uid)]))\">Edit</a> "
        html += "<a class=\"button\" href=\"\(HTML.link("/contact/history", [("uid", uid)]))\">History</a> "
        html += layout.buttonForm(action: "/contact/delete", label: "Delete", fields: [("uid", uid), ("version", file.version)], className: "danger")
        html += "</p>\n<dl class=\"properties\">\n"
        let labels = Self.groupLabels(card)
        for property in card.properties {
            let name = property.name.uppercased()
            if ["BEGIN", "END", "VERSION", "PHOTO", "X-ABLABEL"].contains(name) { continue }
            var term = PropertyWords.name(property)
            if let group = property.group?.lowercased(), let label = labels[group] {
                term = "\(term) (\(label))"
            }
            let words = PropertyWords.parameters(property)
            html += "<dt>\(HTML.escape(term))</dt><dd>"
            if name == "URL", property.rawValue.hasPrefix("http://") || property.rawValue.hasPrefix("https://") {
                html += "<a href=\"\(HTML.escape(property.rawValue))\" rel=\"noopener noreferrer\">\(HTML.escape(property.rawValue))</a>"
            } else if name == "EMAIL" {
                html += "<a href=\"mailto:\(HTML.escape(property.textValue))\">\(HTML.escape(property.textValue))</a>"
            } else {
                html += "<span class=\"value\">\(HTML.escape(PropertyWords.value(property)))</span>"
            }
            if !words.isEmpty { html += " <span class=\"params\">(\(HTML.escape(words.joined(separator: ", "))))</span>" }
            html += "</dd>\n"
        }
        html += "</dl>\n<details class=\"raw\"><summary>Raw vCard</summary>\n<pre>\(HTML.escape(String(decoding: file.bytes, as: UTF8.self)))</pre>\n</details>\n"
        html += "<p class=\"meta\">File \(HTML.escape(file.record.file)) · UID \(HTML.escape(uid))</p>\n</article>\n"
        return layout.render(title: title, notice: notice, body: html)
    }

    /// `item1` → "Mobile" for every group with an `X-ABLabel`.
    static func groupLabels(_ card: VCard) -> [String: String] {
        var labels: [String: String] = [:]
        for property in card.properties where property.hasName("X-ABLABEL") {
            if let group = property.group?.lowercased() { labels[group] = PropertyWords.label(property.textValue) }
        }
        return labels
    }

    static func photo(_ property: VCardProperty) -> String {
        if let data = property.binaryData {
            let type = property.mediaType ?? "image/jpeg"
            guard type.hasPrefix("image/") else { return "" }
            return "<img class=\"photo\" src=\"data:\(HTML.escape(type));base64,\(VCardKit.Base64.encode(data))\" alt=\"Photo\">\n"
        }
        if property.rawValue.hasPrefix("data:image/") {
            return "<img class=\"photo\" src=\"\(HTML.escape(property.rawValue))\" alt=\"Photo\">\n"
        }
        return "<p class=\"photo-link\">Photo: \(HTML.escape(property.rawValue)) (not loaded: pages load nothing from elsewhere)</p>\n"
    }
}
