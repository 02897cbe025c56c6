import ContactDiff
import ContactStore
import VCardKit

/// Merging a group of duplicates while choosing the values: for each property a card has once
/// (`FN`, `N`, `ORG`, …) whose value differs between the contacts, radio buttons say which
/// contact's value the merged card takes; every other value of the merged card (phones,
/// e-mails, addresses, …) has a check box, ticked, to keep it. The proposal is what
/// ``ContactMerger`` makes of the contacts, the kept one first.
struct MergePage: Sendable {
    /// The contacts, the one kept (whose UID and file stay) first.
    var files: [ContactFile]

    /// The properties whose value is chosen among the contacts' (one radio button per value).
    static let chosenNames = ["FN", "N", "ORG", "TITLE", "ROLE", "NICKNAME", "BDAY", "ANNIVERSARY", "GENDER", "KIND", "PHOTO"]
    /// Properties that are neither chosen nor listed: the card's frame and bookkeeping.
    static let unlisted: Set<String> = ["BEGIN", "END", "VERSION", "UID", "REV", "PRODID"]

    /// ``ContactMerger``'s proposal.
    var proposal: VCard { ContactMerger().merge(files.map(\.card)) }

    /// One value a contact offers for a chosen property: the contact's position and its properties.
    struct Option: Sendable {
        var member: Int
        var properties: [VCardProperty]
        var words: String
    }

    /// The distinct values the contacts have for `name` (one option per distinct value, the
    /// first contact having it), and the option the proposal took.
    func options(for name: String, in proposal: VCard) -> (options: [Option], proposed: Int) {
        var options: [Option] = []
        for (member, file) in files.enumerated() {
            let properties = file.card.all(name)
            guard !properties.isEmpty else { continue }
            let words = properties.map(Self.words).joined(separator: "; ")
            if !options.contains(where: { $0.words == words }) { options.append(Option(member: member, properties: properties, words: words)) }
        }
        let proposedWords = proposal.all(name).map(Self.words).joined(separator: "; ")
        return (options, options.firstIndex { $0.words == proposedWords } ?? 0)
    }

    /// The positions in `proposal` of the values offered with a check box (grouped labels
    /// such as `item1.X-ABLabel` go with their group's value and are not listed).
    static func listedPositions(in proposal: VCard) -> [Int] {
        proposal.properties.indices.filter { position in
            let property = proposal.properties[position]
            let name = property.name.uppercased()
            return !unlisted.contains(name) && !chosenNames.contains(name) && !(property.group != nil && name.hasPrefix("X-AB"))
        }
    }

    /// The merged card: the proposal with the values of `form` — `choose.NAME` (the position of
    /// the contact whose value is taken) and `value` (the positions of the values to keep).
    func mergedCard(form: FormFields) -> VCard {
        var card = proposal
        let kept = Set(form.all("value").compactMap(Int.init))
        let removed = Set(Self.listedPositions(in: card).filter { !kept.contains($0) })
        // A group whose every listed value is removed loses its labels too.
        let removedGroups = Set(removed.compactMap { card.properties[$0].group?.lowercased() }).filter { group in
            !card.properties.indices.contains { !removed.contains($0) && card.properties[$0].group?.lowercased() == group
                && !card.properties[$0].name.uppercased().hasPrefix("X-AB") }
        }
        card.properties = card.properties.enumerated().filter { position, property in
            !removed.contains(position) && !(property.group.map { removedGroups.contains($0.lowercased()) } ?? false)
        }.map(\.element)
        for name in Self.chosenNames {
            guard let text = form["choose.\(name)"], let member = Int(text), files.indices.contains(member) else { continue }
            let replacement = files[member].card.all(name).map {
                VCardProperty(name: $0.name, parameters: $0.parameters, rawValue: $0.rawValue)
            }
            guard replacement.map(Self.words) != card.all(name).map(Self.words) else { continue }
            let position = card.properties.firstIndex { $0.hasName(name) }
                ?? (card.properties.firstIndex { $0.hasName("UID") }.map { $0 + 1 } ?? card.properties.count)
            card.properties.removeAll { $0.hasName(name) }
            card.properties.insert(contentsOf: replacement, at: min(position, card.properties.count))
        }
        return card
    }

    /// A value in words: its fields as the edit form shows them, then its parameters.
    static func words(_ property: VCardProperty) -> String {
        let name = property.name.uppercased()
        var text = EditableProperty.named(name).map { $0.fieldValues(property).filter { !$0.isEmpty }.joined(separator: ", ") }
            ?? (name == "PHOTO" ? "a photo (\(property.rawValue.utf8.count) bytes)" : property.textValue)
        let parameters = PropertyWords.parameters(property)
        if !parameters.isEmpty { text += " (\(parameters.joined(separator: ", ")))" }
        return text
    }

    func render(layout: PageLayout, notice: Notice?) -> String {
        let card = proposal
        let names = files.map { $0.card.formattedName ?? $0.record.name ?? $0.record.uid }
        var html = "<h1>Merge \(files.count) contacts</h1>\n<p>Kept: <a href=\"\(HTML.link("/contact", [("uid", files[0].record.uid)]))\">\(HTML.escape(names[0]))</a>; "
        html += "merged into it: " + names.dropFirst().map(HTML.escape).joined(separator: ", ") + ". Undo is offered after the merge.</p>\n"
        html += "<form method=\"post\" action=\"/merge\" class=\"merge\">\(layout.csrfField)<input type=\"hidden\" name=\"chosen\" value=\"1\">"
        html += "<input type=\"hidden\" name=\"keep\" value=\"\(HTML.escape(files[0].record.uid))\">"
        for file in files {
            html += "<input type=\"hidden\" name=\"uid\" value=\"\(HTML.escape(file.record.uid))\">"
            html += "<input type=\"hidden\" name=\"version\" value=\"\(HTML.escape(file.version))\">"
        }
        html += "\n"
        for name in Self.chosenNames {
            let (options, proposed) = options(for: name, in: card)
            guard options.count >= 2 else { continue }
            let label = PropertyWords.names[name] ?? name
            html += "<fieldset class=\"choice\"><legend>\(HTML.escape(label))</legend>"
            for (position, option) in options.enumerated() {
                let id = "choose-\(name)-\(position)"
                html += "<div><input type=\"radio\" id=\"\(id)\" name=\"choose.\(name)\" value=\"\(option.member)\"\(position == proposed ? " checked" : "")>"
                html += "<label for=\"\(id)\">\(HTML.escape(option.words)) <span class=\"meta\">(from \(HTML.escape(names[option.member])))</span></label></div>"
            }
            html += "</fieldset>\n"
        }
        let listed = Self.listedPositions(in: card)
        if !listed.isEmpty {
            html += "<fieldset class=\"values\"><legend>Values to keep</legend>"
            for position in listed {
                let property = card.properties[position]
                let id = "value-\(position)"
                let label = PropertyWords.names[property.name.uppercased()] ?? property.name
                html += "<div><input type=\"checkbox\" id=\"\(id)\" name=\"value\" value=\"\(position)\" checked>"
                html += "<label for=\"\(id)\">\(HTML.escape(label)): \(HTML.escape(Self.words(property)))</label></div>"
            }
            html += "</fieldset>\n"
        }
        html += "<p class=\"actions\"><button type=\"submit\">Merge</button> <a class=\"button\" href=\"/duplicates\">Cancel</a></p>\n</form>\n"
        return layout.render(title: "Merge contacts", notice: notice, body: html)
    }
}
