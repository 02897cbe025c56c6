/// The words, phrases and identifiers contacts are made of.
///
/// Values are stored as people would type them; escaping happens when a card is written.
enum ContentPools {
    static let prefixes: [[String]] = [["Dr."], ["Mr."], ["Ms."], ["Prof."], ["Mx."], ["Prof.", "Dr."]]
    static let suffixes: [[String]] = [["Jr."], ["Sr."], ["III"], ["PhD"], ["MD"], ["Esq.", "CPA"]]
    static let nameRemarks = ["Sales", "from the conference", "old number", "Kita Sonnenschein", "Acme, Berlin"]

    static let nicknames = ["Jo", "Bibi", "Ace", "Dr. J", "小李", "Sasha", "Kiki", "Moe, the Great", "Βασούλα", "Jojo"]

    static let emailDomains = [
        "example.com", "example.org", "example.net", "mail.example", "post.example.de", "uni.example.edu",
        "kaisha.example.jp", "inbox.test", "bücherei.example",
    ]

    static let organizations: [[String]] = [
        ["Northwind Traders, Ltd.", "Logistics", "Inbound"],
        ["Grupo Ejemplo, S.A. de C.V.", "Ventas"],
        ["株式会社エグザンプル", "営業部", "第二課"],
        ["ООО «Ромашка»", "Бухгалтерия"],
        ["Contoso Pharmaceuticals", "Research; Oncology"],
        ["Fabrikam \\ Backslash Labs"],
        ["Université de Montréal", "Département d'informatique et de recherche opérationnelle"],
        ["Müller & Söhne GmbH & Co. KG"],
        ["شركة المثال للتجارة", "قسم المبيعات"],
        ["City Hospital", "Cardiology, Ward 4", "Night shift"],
        ["Ελληνική Εταιρεία Α.Ε."],
        ["Tailspin Toys"],
    ]

    static let titles = [
        "Senior Engineer, Payments", "Chief Executive Officer", "Directrice des ventes", "プロダクトマネージャー",
        "Head of Legal; EMEA", "Werkstudent", "Principal, Design & Research", "Professor (emerita)",
        "Site reliability \\ on-call lead", "Руководитель отдела", "מנהלת פרויקטים",
    ]

    static let roles = [
        "Project sponsor", "Consultant, external", "Chef de projet", "Release manager", "Ansprechpartnerin",
    ]

    static let categories = [
        "Friends", "Family", "Work", "VIP", "Clients, EU", "Book club", "Nachbarn", "同事", "Climbing; Tuesdays",
        "Newsletter", "Équipe",
    ]

    static let noteFragments = [
        "Met at the Lisbon meetup; wants the slides, the recording, and the budget sheet.",
        "Prefers calls after 18:00 — don't text before 9, please! 🙏",
        "Old files are in C:\\Projects\\contacts\\archive; ask before deleting.",
        "Multi-line note:\nfirst line\nsecond line\n\nafter an empty line",
        "家族: 妻と子供二人。誕生日プレゼントは本が好き。",
        "회의는 매주 화요일 오전 10시; 장소는 본사 3층.",
        "Family 👨‍👩‍👧‍👦, flag 🏳️‍🌈, coder 👩🏽‍💻, heart on fire ❤️‍🔥, thumbs 👍🏾",
        "Arabic: يرجى الاتصال بعد الظهر، شكراً. Hebrew: נא להתקשר אחרי הצהריים.",
        "Καλησπέρα; Добрый вечер, как дела?",
        "हिंदी: कृपया शाम को फ़ोन करें, धन्यवाद।",
        "Semicolons; commas, a backslash \\ and another at the end \\",
        "Tabs\there\tand a quote: \"stay curious\".",
        "Decomposed accents: Zoe\u{0308} and Cafe\u{0301} (NFD), composed: Zoë and Café.",
        "Order #4521 for שלום, ref. مرحبا-17, then back to LTR.",
        "Allergies: peanuts, shellfish; vegetarian since 2019.",
        "Windows line end here:\r\nand a classic Mac one here:\rdone.",
    ]

    static let productIDs = [
        "-//cardsync//SampleGenerator 1.0//EN", "-//Apple Inc.//macOS 14.4//EN", "-//Sabre//Sabre VObject 4.5.4//EN",
        "ez-vcard 0.12.1", "-//Nextcloud Contacts v6.0.2", "-//Example Corp.//Contacts Exporter 2.3//EN",
    ]

    static let classifications = ["PUBLIC", "PRIVATE", "CONFIDENTIAL"]

    static let genderIdentities = ["non-binary", "intersex", "prefers not to say; ask first", "genderfluid"]

    static let relationTypes = ["spouse", "friend", "colleague", "child", "parent", "sibling", "emergency"]

    static let languageTags = ["en", "fr-CA", "de", "ja", "es-MX", "pt-BR"]

    static let appleLabels = ["_$!<Other>!$_", "_$!<HomePage>!$_", "Büro", "私用", "Blog"]

    static let socialNetworks = ["twitter", "linkedin", "facebook", "mastodon"]
}
