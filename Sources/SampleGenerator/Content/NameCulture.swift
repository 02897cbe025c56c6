/// A naming tradition: its script, name order and pools of names.
struct NameCulture: Sendable {
    /// A name part in its own script and in Latin letters.
    struct Entry: Sendable {
        enum Sex: Sendable { case male, female, either }

        var native: String
        var latin: String
        var phonetic: String?
        var sex: Sex
        /// The feminine form of a family name, where the language has one (Иванов → Иванова).
        var feminine: (native: String, latin: String)?
    }

    /// BCP 47 language tag, for FN's LANGUAGE parameter and LANG.
    var language: String
    var order: PersonName.Order
    var given: [Entry]
    var family: [Entry]
    /// Middle names or patronymics; picked only when their sex matches the given name.
    var additional: [Entry] = []
    /// Whether Western prefixes and suffixes ("Dr.", "Jr.") fit.
    var usesHonorifics = false
    /// How often, relative to the other cultures, a contact comes from this one.
    var weight: Int

    var isLatinScript: Bool {
        given.allSatisfy { $0.native == $0.latin } && family.allSatisfy { $0.native == $0.latin }
    }
}

/// Shorthands that keep the name tables below readable.
private func male(_ native: String, _ latin: String? = nil, kana: String? = nil) -> NameCulture.Entry {
    NameCulture.Entry(native: native, latin: latin ?? native, phonetic: kana, sex: .male)
}

private func female(_ native: String, _ latin: String? = nil, kana: String? = nil) -> NameCulture.Entry {
    NameCulture.Entry(native: native, latin: latin ?? native, phonetic: kana, sex: .female)
}

private func either(_ native: String, _ latin: String? = nil, kana: String? = nil) -> NameCulture.Entry {
    NameCulture.Entry(native: native, latin: latin ?? native, phonetic: kana, sex: .either)
}

private func gendered(_ masculine: String, _ latin: String, _ feminine: String, _ feminineLatin: String)
    -> NameCulture.Entry
{
    NameCulture.Entry(native: masculine, latin: latin, sex: .either, feminine: (feminine, feminineLatin))
}

extension NameCulture {
    /// Every culture the generator draws names from.
    static let all: [NameCulture] = [
        NameCulture(
            language: "en", order: .givenFirst,
            given: [
                male("James"), female("Mary"), male("Robert"), female("Linda"), male("Michael"), female("Sarah"),
                male("David"), female("Emily"), male("John"), female("Jennifer"), male("Thomas"), female("Karen"),
            ],
            family: [
                either("Smith"), either("Johnson"), either("Williams"), either("Brown"), either("Jones"),
                either("Miller"), either("Davis"), either("Wilson"), either("Taylor"), either("O'Connor"),
                either("MacLeod"), either("Anderson"),
            ],
            additional: [either("Lee"), female("Ann"), female("Marie"), male("Edward"), male("James")],
            usesHonorifics: true, weight: 6),
        NameCulture(
            language: "fr", order: .givenFirst,
            given: [
                female("Élodie", "Elodie"), male("François", "Francois"), female("Hélène", "Helene"),
                male("Jérôme", "Jerome"), female("Maëlle", "Maelle"), male("Noël", "Noel"),
                male("Benoît", "Benoit"), female("Cécile", "Cecile"),
            ],
            family: [
                either("Lefèvre", "Lefevre"), either("Béranger", "Beranger"), either("Dubois"),
                either("Château", "Chateau"), either("Fontaine"), either("Mercier"), either("Rousseau"),
                either("Ducasse"),
            ],
            additional: [female("Anaïs", "Anais"), male("Aurélien", "Aurelien")],
            usesHonorifics: true, weight: 2),
        NameCulture(
            language: "de", order: .givenFirst,
            given: [
                male("Jürgen", "Juergen"), female("Käthe", "Kaethe"), male("Lukas"), male("Jörg", "Joerg"),
                female("Sophie"), male("Gerhard"), female("Anneliese"), female("Grete"),
            ],
            family: [
                either("Müller", "Mueller"), either("Schäfer", "Schaefer"), either("Weiß", "Weiss"),
                either("Groß", "Gross"), either("Köhler", "Koehler"), either("Bäcker", "Baecker"),
                either("Schröder", "Schroeder"), either("Hoffmann"),
            ],
            usesHonorifics: true, weight: 2),
        NameCulture(
            language: "es", order: .givenFirst,
            given: [
                male("José", "Jose"), female("María", "Maria"), male("Íñigo", "Inigo"), female("Lucía", "Lucia"),
                male("João", "Joao"), female("Conceição", "Conceicao"), male("Sebastián", "Sebastian"),
                female("Begoña", "Begona"),
            ],
            family: [
                either("García", "Garcia"), either("Núñez", "Nunez"), either("Peña", "Pena"),
                either("Muñoz", "Munoz"), either("Gonçalves", "Goncalves"), either("Ibáñez", "Ibanez"),
                either("Magalhães", "Magalhaes"), either("Fernández", "Fernandez"),
            ],
            additional: [male("Luis"), female("Carmen"), male("Antonio"), female("Inés", "Ines")],
            usesHonorifics: true, weight: 2),
        NameCulture(
            language: "pl", order: .givenFirst,
            given: [
                male("Łukasz", "Lukasz"), female("Małgorzata", "Malgorzata"), male("Jiří", "Jiri"),
                female("Zdeňka", "Zdenka"), male("Søren", "Soren"), female("Åsa", "Asa"), female("Ólöf", "Olof"),
                male("Çağlar", "Caglar"), female("Şebnem", "Sebnem"), male("Ömer", "Omer"),
            ],
            family: [
                either("Kowalczyk"), either("Wójcik", "Wojcik"), either("Mazur"), either("Sørensen", "Sorensen"),
                either("Åberg", "Aberg"), either("Lindqvist"), either("Yılmaz", "Yilmaz"),
                either("Öztürk", "Ozturk"), either("Şahin", "Sahin"), either("Ødegård", "Odegard"),
            ],
            weight: 2),
        NameCulture(
            language: "vi", order: .familyFirst(separator: " "),
            given: [
                female("Thị Hương", "Huong"), male("Văn Đức", "Duc"), female("Minh Anh", "Minh Anh"),
                female("Bảo Ngọc", "Bao Ngoc"), male("Quốc Huy", "Quoc Huy"), male("Thành Long", "Thanh Long"),
            ],
            family: [
                either("Nguyễn", "Nguyen"), either("Trần", "Tran"), either("Lê", "Le"), either("Phạm", "Pham"),
                either("Hoàng", "Hoang"), either("Võ", "Vo"),
            ],
            weight: 1),
        NameCulture(
            language: "zh", order: .familyFirst(separator: ""),
            given: [
                male("伟", "Wei"), female("芳", "Fang"), female("秀英", "Xiuying"), male("建国", "Jianguo"),
                female("静", "Jing"), male("俊杰", "Junjie"), female("雨桐", "Yutong"), male("子轩", "Zixuan"),
            ],
            family: [
                either("王", "Wang"), either("李", "Li"), either("张", "Zhang"), either("刘", "Liu"),
                either("陈", "Chen"), either("杨", "Yang"), either("黄", "Huang"), either("欧阳", "Ouyang"),
            ],
            weight: 2),
        NameCulture(
            language: "ja", order: .familyFirst(separator: ""),
            given: [
                male("翔太", "Shota", kana: "しょうた"), female("陽菜", "Hina", kana: "ひな"),
                male("蓮", "Ren", kana: "れん"), female("結衣", "Yui", kana: "ゆい"),
                male("大輝", "Daiki", kana: "だいき"), female("美咲", "Misaki", kana: "みさき"),
            ],
            family: [
                either("佐藤", "Sato", kana: "さとう"), either("鈴木", "Suzuki", kana: "すずき"),
                either("高橋", "Takahashi", kana: "たかはし"), either("田中", "Tanaka", kana: "たなか"),
                either("渡辺", "Watanabe", kana: "わたなべ"), either("伊藤", "Ito", kana: "いとう"),
                either("山本", "Yamamoto", kana: "やまもと"),
            ],
            weight: 2),
        NameCulture(
            language: "ko", order: .familyFirst(separator: ""),
            given: [
                male("민준", "Minjun"), female("서연", "Seoyeon"), male("지훈", "Jihoon"), female("하은", "Haeun"),
                male("도윤", "Doyun"), female("수아", "Sua"),
            ],
            family: [
                either("김", "Kim"), either("이", "Lee"), either("박", "Park"), either("최", "Choi"),
                either("정", "Jung"), either("강", "Kang"),
            ],
            weight: 2),
        NameCulture(
            language: "ru", order: .givenFirst,
            given: [
                male("Дмитрий", "Dmitry"), female("Анна", "Anna"), male("Сергей", "Sergey"),
                female("Екатерина", "Ekaterina"), male("Алексей", "Alexey"), female("Ольга", "Olga"),
                male("Михаил", "Mikhail"), female("Татьяна", "Tatiana"),
            ],
            family: [
                gendered("Иванов", "Ivanov", "Иванова", "Ivanova"),
                gendered("Смирнов", "Smirnov", "Смирнова", "Smirnova"),
                gendered("Кузнецов", "Kuznetsov", "Кузнецова", "Kuznetsova"),
                gendered("Попов", "Popov", "Попова", "Popova"),
                gendered("Соколов", "Sokolov", "Соколова", "Sokolova"),
                gendered("Лебедев", "Lebedev", "Лебедева", "Lebedeva"),
            ],
            additional: [
                male("Сергеевич", "Sergeevich"), female("Сергеевна", "Sergeevna"),
                male("Андреевич", "Andreevich"), female("Андреевна", "Andreevna"),
                male("Петрович", "Petrovich"), female("Петровна", "Petrovna"),
            ],
            weight: 2),
        NameCulture(
            language: "el", order: .givenFirst,
            given: [
                male("Γιώργος", "Giorgos"), female("Μαρία", "Maria"), male("Νίκος", "Nikos"),
                female("Ελένη", "Eleni"), male("Δημήτρης", "Dimitris"), female("Κατερίνα", "Katerina"),
            ],
            family: [
                either("Γεωργίου", "Georgiou"), either("Νικολάου", "Nikolaou"), either("Οικονόμου", "Oikonomou"),
                either("Αντωνίου", "Antoniou"), either("Δημητρίου", "Dimitriou"), either("Ιωάννου", "Ioannou"),
            ],
            weight: 1),
        NameCulture(
            language: "ar", order: .givenFirst,
            given: [
                male("محمد", "Mohammed"), female("فاطمة", "Fatima"), male("أحمد", "Ahmed"), female("ليلى", "Layla"),
                male("يوسف", "Youssef"), female("نور", "Nour"), male("عمر", "Omar"), female("مريم", "Maryam"),
            ],
            family: [
                either("العلي", "Al-Ali"), either("الحسن", "Al-Hassan"), either("منصور", "Mansour"),
                either("حداد", "Haddad"), either("الخطيب", "Al-Khatib"), either("الشامي", "Al-Shami"),
            ],
            weight: 2),
        NameCulture(
            language: "he", order: .givenFirst,
            given: [
                male("דוד", "David"), female("שרה", "Sarah"), male("יוסף", "Yosef"), female("מרים", "Miriam"),
                female("נועה", "Noa"), either("אריאל", "Ariel"), male("איתי", "Itai"), female("תמר", "Tamar"),
            ],
            family: [
                either("כהן", "Cohen"), either("לוי", "Levi"), either("מזרחי", "Mizrahi"), either("פרץ", "Peretz"),
                either("ביטון", "Biton"), either("אברהם", "Avraham"),
            ],
            weight: 1),
        NameCulture(
            language: "hi", order: .givenFirst,
            given: [
                female("प्रिया", "Priya"), male("राहुल", "Rahul"), female("अनन्या", "Ananya"),
                male("अर्जुन", "Arjun"), female("दीपिका", "Deepika"), male("विक्रम", "Vikram"),
                female("सुनीता", "Sunita"), male("अमित", "Amit"),
            ],
            family: [
                either("शर्मा", "Sharma"), either("वर्मा", "Verma"), either("गुप्ता", "Gupta"), either("सिंह", "Singh"),
                either("पटेल", "Patel"), either("मेहता", "Mehta"),
            ],
            weight: 2),
    ]

    /// Culture indices repeated by weight, so a uniform pick is a weighted one.
    static let weightedIndices: [Int] = all.indices.flatMap { index in
        Array(repeating: index, count: all[index].weight)
    }
}
