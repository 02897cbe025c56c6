import ContactDiff
import ContactStore
import Foundation
import VCardKit

extension WebSite {
    /// The contacts named by `keep` and `uid` fields, the kept one first.
    private func mergeMembers(_ fields: FormFields) async throws -> [ContactFile] {
        let keep = try required(fields, "keep")
        let others = fields.all("uid").filter { $0 != keep }
        guard !others.isEmpty else { throw WebError(status: 400, message: "Choose at least two contacts to merge; nothing was changed.") }
        var files: [ContactFile] = []
        for uid in [keep] + others { files.append(try await book.contactFile(uid: uid)) }
        return files
    }

    /// The merge page: which values the merged contact takes (`GET /merge?keep=…&uid=…`).
    func mergeChoicePage(_ request: WebRequest) async throws -> WebResponse {
        .page(MergePage(files: try await mergeMembers(request.query)).render(layout: layout, notice: nil))
    }

    /// Merges with the values chosen on the merge page, through the book's journal (undo brings
    /// every contact back). Refused, with the page shown again, when a contact changed since.
    func mergeChoosingValues(_ request: WebRequest) async throws -> WebResponse {
        let files = try await mergeMembers(request.form)
        let page = MergePage(files: files)
        guard request.form.all("version") == files.map(\.version) else {
            return .page(page.render(layout: layout, notice: Notice(kind: .error, message:
                "One of these contacts was changed by another program or a sync after the page was shown, so nothing was merged. Here they are as they are now: choose again.")), status: 409)
        }
        let kept = files[0].record.uid
        let absorbed = files.dropFirst().map(\.record.uid)
        let events = try await book.recordMerge(keeping: kept, card: page.mergedCard(form: request.form), absorbing: absorbed)
        await catalog.refresh([kept] + absorbed, from: book)
        return .redirect(to: HTML.unescapedLink("/contact", [("uid", kept), ("done", "Merged \(files.count) contacts into this one (\(events.count) journal events)."),
                                                             ("unmerge", kept)]))
    }
}
