import ContactStore
import VCardKit

/// The edit form: fields for the common properties with a remove box per value and an empty
/// slot to add one, and a raw vCard editor; both carry the version of the file they show.
struct EditPage: Sendable {
    /// The contact being edited; `nil` for a new contact.
    var file: ContactFile?
    /// The raw text to show in the raw editor (what the user typed, after an invalid save).
    var rawText: String?
    /// The form as the user filled it in, when the page is shown again with one more empty
    /// slot ("Add another phone"): its values replace the stored ones in the fields.
    var typed: FormFields?
    /// The property (`TEL`, `EMAIL`, …) that gets one more empty slot than the typed form had.
    var adding: String?

    /// The most empty slots for new values of one property in one form (``CardEditor`` reads as many).
    static let maximumNewSlots = 20

    /// How many empty slots for new values of `editable` the form shows: one, or as many as the
    /// typed form had, plus one for the property being added to.
    func newSlotCount(_ editable: EditableProperty) -> Int {
        var count = 1
        if let typed {
            while count < Self.maximumNewSlots && CardEditor.newFieldNames(editable, slot: count).contains(where: typed.contains) {
                count += 1
            }
        }
        if adding == editable.name && editable.isRepeatable { count += 1 }
        return min(count, Self.maximumNewSlots)
    }

    func render(layout: PageLayout, notice: Notice?) -> String {
        let card = file?.card ?? VCard(version: .v4_0, properties: [])
        let uid = file?.record.uid
        let title = uid == nil ? "New contact" : "Edit \(card.formattedName ?? file?.record.name ?? uid ?? "")"
        var html = "<h1>\(HTML.escape(title))</h1>\n"
        let action = uid == nil ? "/new" : "/contact/save"
        html += "<form method=\"post\" action=\"\(action)\" class=\"edit\">\n\(layout.csrfField)\n"
        if let file {
            html += "<input type=\"hidden\" name=\"uid\" value=\"\(HTML.escape(file.record.uid))\">\n"
            html += "<input type=\"hidden\" name=\"version\" value=\"\(HTML.escape(typed?["version"] ?? file.version))\">\n"
        }
        // Enter in a field submits the form with its first button: Save, not "Add another …".
        html += "<p class=\"actions\"><button type=\"submit\">Save</button></p>\n"
        for editable in EditableProperty.all {
            html += "<fieldset class=\"property\" data-name=\"\(editable.name)\"><legend>\(HTML.escape(editable.sectionLabel))</legend>\n"
            var count = 0
            for (position, property) in card.properties.enumerated() where property.hasName(editable.name) {
                count += 1
                let names = CardEditor.fieldNames(position, count: editable.componentCount)
                let values = zip(names, editable.fieldValues(property)).map { typed?[$0.0] ?? $0.1 }
                let words = PropertyWords.parameters(property)
                let labelSuffix = words.isEmpty ? "" : " (\(words.joined(separator: ", ")))"
                html += "<div class=\"value\">"
                html += fields(editable, names: names, values: values, labelSuffix: labelSuffix)
                html += "<label class=\"remove\"><input type=\"checkbox\" name=\"remove\(position)\" value=\"1\"\(typed?.contains("remove\(position)") == true ? " checked" : "")> Remove this \(HTML.escape(editable.label.lowercased()))</label>"
                html += "</div>\n"
            }
            if editable.isRepeatable || count == 0 {
                for slot in 0..<newSlotCount(editable) {
                    html += newSlot(editable, slot: slot)
                }
            }
            if editable.isRepeatable {
                html += "<p><button type=\"submit\" name=\"add\" value=\"\(editable.name)\" class=\"add\">Add another \(HTML.escape(editable.label.lowercased()))</button></p>\n"
            }
            html += "</fieldset>\n"
        }
        html += "<p class=\"actions\"><button type=\"submit\">Save</button> "
        html += "<a class=\"button\" href=\"\(uid.map { HTML.link("/contact", [("uid", $0)]) } ?? "/")\">Cancel</a></p>\n</form>\n"
        if let file {
            html += """
            <section class="raw-editor">
            <h2>Raw vCard</h2>
            <p>Everything the form does not show can be edited here. Lines you do not change stay byte for byte.</p>
            <form method="post" action="/contact/raw" class="raw">
            \(layout.csrfField)
            <input type="hidden" name="uid" value="\(HTML.escape(file.record.uid))">
            <input type="hidden" name="version" value="\(HTML.escape(file.version))">
            <label for="raw">vCard text</label>
            <textarea id="raw" name="raw" rows="18" spellcheck="false" data-validate="/validate">
            \(HTML.escape(rawText ?? String(decoding: file.bytes, as: UTF8.self)))</textarea>
            <output id="raw-problems" for="raw" aria-live="polite"></output>
            <p class="actions"><button type="submit">Save raw vCard</button></p>
            </form>
            </section>

            """
        }
        return layout.render(title: title, notice: notice, body: html)
    }

    /// The empty fields for the `slot`th new value of `editable`, with what the user typed in them.
    private func newSlot(_ editable: EditableProperty, slot: Int) -> String {
        let names = CardEditor.newFieldNames(editable, slot: slot)
        var html = "<div class=\"value new\">"
        html += fields(editable, names: names, values: names.map { typed?[$0] ?? "" }, labelSuffix: slot == 0 ? "" : " \(slot + 1)", isNew: true)
        if !editable.typeChoices.isEmpty {
            let id = "type.\(editable.name).\(slot)"
            let chosen = typed?[id]
            html += "<label for=\"\(id)\">Kind of new \(HTML.escape(editable.label.lowercased()))</label><select id=\"\(id)\" name=\"\(id)\"><option value=\"\">(none)</option>"
            for choice in editable.typeChoices {
                html += "<option value=\"\(choice)\"\(chosen == choice ? " selected" : "")>\(HTML.escape(PropertyWords.types[choice] ?? choice))</option>"
            }
            html += "</select>"
        }
        return html + "</div>\n"
    }

    private func fields(_ editable: EditableProperty, names: [String], values: [String], labelSuffix: String, isNew: Bool = false) -> String {
        var html = ""
        let labels: [String] = if case .components(let labels) = editable.shape { labels } else { [editable.label] }
        for (position, name) in names.enumerated() {
            let label = (isNew ? "New " + labels[position].lowercased() : labels[position]) + (position == 0 ? labelSuffix : "")
            html += "<label for=\"\(HTML.escape(name))\">\(HTML.escape(label))</label>"
            if case .longText = editable.shape {
                html += "<textarea id=\"\(HTML.escape(name))\" name=\"\(HTML.escape(name))\" rows=\"3\">\n\(HTML.escape(values[position]))</textarea>"
            } else {
                let mode = editable.name == "EMAIL" ? " inputmode=\"email\"" : editable.name == "TEL" ? " inputmode=\"tel\"" : ""
                html += "<input type=\"text\"\(mode) id=\"\(HTML.escape(name))\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(values[position]))\">"
            }
        }
        return html
    }
}
