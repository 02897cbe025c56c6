/// A country: how its addresses and telephone numbers look.
struct Region: Sendable {
    struct Locality: Sendable {
        var name: String
        var region: String
        var postalCode: String
    }

    var country: String
    var localities: [Locality]
    var streets: [String]
    var countryCode: String
    var trunkPrefix: String
    /// Number layouts: each string is a pattern of groups separated by spaces; `#` is a random digit.
    var numberPatterns: [String]
    /// The tz database zone and UTC offset in minutes (standard time).
    var timeZone: String
    var utcOffsetMinutes: Int
    /// Latitude and longitude of the area, in millionths of a degree.
    var latitude: Int
    var longitude: Int
}

extension Region {
    /// Every region the generator draws addresses and numbers from.
    ///
    /// North American numbers use the 555-01xx range and UK and Australian numbers the ranges
    /// the regulators set aside for drama, so no generated number rings a real telephone.
    static let all: [Region] = [
        Region(
            country: "USA",
            localities: [
                Locality(name: "Springfield", region: "IL", postalCode: "62704"),
                Locality(name: "Portland", region: "OR", postalCode: "97205"),
                Locality(name: "Austin", region: "TX", postalCode: "78701"),
            ],
            streets: ["742 Evergreen Terrace", "1600 Elm Street, Apt 3B", "18 Harbor View Rd.", "PO Box 1207"],
            countryCode: "1", trunkPrefix: "", numberPatterns: ["312 555 01##", "503 555 01##", "512 555 01##"],
            timeZone: "America/Chicago", utcOffsetMinutes: -360, latitude: 39_781_721, longitude: -89_650_148),
        Region(
            country: "France",
            localities: [
                Locality(name: "Lyon", region: "", postalCode: "69002"),
                Locality(name: "Bordeaux", region: "", postalCode: "33000"),
            ],
            streets: ["12, rue de la République", "3 bis, allée des Tilleuls", "Résidence Les Pins; Bât. C"],
            countryCode: "33", trunkPrefix: "0", numberPatterns: ["4 ## ## ## ##", "6 ## ## ## ##"],
            timeZone: "Europe/Paris", utcOffsetMinutes: 60, latitude: 45_764_043, longitude: 4_835_659),
        Region(
            country: "Deutschland",
            localities: [
                Locality(name: "München", region: "Bayern", postalCode: "80331"),
                Locality(name: "Köln", region: "Nordrhein-Westfalen", postalCode: "50667"),
            ],
            streets: ["Königstraße 12", "Am Weißen Steinbruch 3a", "Hinterhof, Ackerstraße 71"],
            countryCode: "49", trunkPrefix: "0", numberPatterns: ["89 ########", "221 #######", "151 ########"],
            timeZone: "Europe/Berlin", utcOffsetMinutes: 60, latitude: 48_137_154, longitude: 11_576_124),
        Region(
            country: "United Kingdom",
            localities: [
                Locality(name: "London", region: "", postalCode: "NW1 6XE"),
                Locality(name: "Edinburgh", region: "Scotland", postalCode: "EH1 1YZ"),
            ],
            streets: ["Flat 2, 14 Baker's Row", "The Old Rectory\nChurch Lane", "221 Gower Street"],
            countryCode: "44", trunkPrefix: "0", numberPatterns: ["20 7946 0###", "7700 900###"],
            timeZone: "Europe/London", utcOffsetMinutes: 0, latitude: 51_507_351, longitude: -127_758),
        Region(
            country: "España",
            localities: [
                Locality(name: "Sevilla", region: "Andalucía", postalCode: "41004"),
                Locality(name: "Bilbao", region: "Bizkaia", postalCode: "48001"),
            ],
            streets: ["Calle Mayor, 7, 2º izq.", "Avenida de la Constitución 21", "Plaza de España s/n"],
            countryCode: "34", trunkPrefix: "", numberPatterns: ["954 ### ###", "6## ### ###"],
            timeZone: "Europe/Madrid", utcOffsetMinutes: 60, latitude: 37_389_092, longitude: -5_984_459),
        Region(
            country: "日本",
            localities: [
                Locality(name: "渋谷区", region: "東京都", postalCode: "150-0041"),
                Locality(name: "大阪市北区", region: "大阪府", postalCode: "530-0001"),
            ],
            streets: ["神南1-2-3", "梅田3丁目4-5 グランドビル12F"],
            countryCode: "81", trunkPrefix: "0", numberPatterns: ["3 #### ####", "90 #### ####"],
            timeZone: "Asia/Tokyo", utcOffsetMinutes: 540, latitude: 35_661_777, longitude: 139_704_051),
        Region(
            country: "Россия",
            localities: [
                Locality(name: "Санкт-Петербург", region: "", postalCode: "191186"),
                Locality(name: "Новосибирск", region: "Новосибирская обл.", postalCode: "630099"),
            ],
            streets: ["Невский проспект, д. 28, кв. 5", "ул. Ленина, 14"],
            countryCode: "7", trunkPrefix: "8", numberPatterns: ["812 ### ## ##", "9## ### ## ##"],
            timeZone: "Europe/Moscow", utcOffsetMinutes: 180, latitude: 59_934_280, longitude: 30_335_099),
        Region(
            country: "Ελλάδα",
            localities: [Locality(name: "Αθήνα", region: "Αττική", postalCode: "105 57")],
            streets: ["Οδός Ερμού 15", "Λεωφόρος Συγγρού 120, 3ος όροφος"],
            countryCode: "30", trunkPrefix: "", numberPatterns: ["21# ### ####", "69# ### ####"],
            timeZone: "Europe/Athens", utcOffsetMinutes: 120, latitude: 37_983_810, longitude: 23_727_539),
        Region(
            country: "ישראל",
            localities: [Locality(name: "תל אביב-יפו", region: "", postalCode: "6423902")],
            streets: ["רחוב דיזנגוף 50", "שדרות רוטשילד 22, דירה 4"],
            countryCode: "972", trunkPrefix: "0", numberPatterns: ["3 ### ####", "5# ### ####"],
            timeZone: "Asia/Jerusalem", utcOffsetMinutes: 120, latitude: 32_085_300, longitude: 34_781_768),
        Region(
            country: "India",
            localities: [
                Locality(name: "मुंबई", region: "महाराष्ट्र", postalCode: "400001"),
                Locality(name: "Bengaluru", region: "Karnataka", postalCode: "560001"),
            ],
            streets: ["12, MG Road; 2nd Cross", "Flat 5, Shanti Niwas, Linking Road"],
            countryCode: "91", trunkPrefix: "0", numberPatterns: ["22 #### ####", "98### #####"],
            timeZone: "Asia/Kolkata", utcOffsetMinutes: 330, latitude: 19_075_984, longitude: 72_877_656),
        Region(
            country: "الإمارات العربية المتحدة",
            localities: [Locality(name: "دبي", region: "", postalCode: "")],
            streets: ["شارع الشيخ زايد، برج 3، مكتب 1204"],
            countryCode: "971", trunkPrefix: "0", numberPatterns: ["4 ### ####", "50 ### ####"],
            timeZone: "Asia/Dubai", utcOffsetMinutes: 240, latitude: 25_204_849, longitude: 55_270_783),
        Region(
            country: "Brasil",
            localities: [Locality(name: "São Paulo", region: "SP", postalCode: "01310-100")],
            streets: ["Av. Paulista, 1578 - Bela Vista", "Rua Oscar Freire, 379, conj. 12"],
            countryCode: "55", trunkPrefix: "0", numberPatterns: ["11 9#### ####", "11 3### ####"],
            timeZone: "America/Sao_Paulo", utcOffsetMinutes: -180, latitude: -23_550_520, longitude: -46_633_308),
        Region(
            country: "Ísland",
            localities: [Locality(name: "Reykjavík", region: "", postalCode: "101")],
            streets: ["Laugavegur 26", "Þingholtsstræti 5"],
            countryCode: "354", trunkPrefix: "", numberPatterns: ["5## ####", "8## ####"],
            timeZone: "Atlantic/Reykjavik", utcOffsetMinutes: 0, latitude: 64_146_582, longitude: -21_942_635),
        Region(
            country: "대한민국",
            localities: [Locality(name: "서울특별시 강남구", region: "", postalCode: "06236")],
            streets: ["테헤란로 152, 12층"],
            countryCode: "82", trunkPrefix: "0", numberPatterns: ["2 #### ####", "10 #### ####"],
            timeZone: "Asia/Seoul", utcOffsetMinutes: 540, latitude: 37_498_095, longitude: 127_027_610),
        Region(
            country: "中国",
            localities: [Locality(name: "上海市", region: "", postalCode: "200120")],
            streets: ["浦东新区世纪大道100号"],
            countryCode: "86", trunkPrefix: "0", numberPatterns: ["21 #### ####", "139 #### ####"],
            timeZone: "Asia/Shanghai", utcOffsetMinutes: 480, latitude: 31_230_416, longitude: 121_473_701),
        Region(
            country: "Australia",
            localities: [Locality(name: "Sydney", region: "NSW", postalCode: "2000")],
            streets: ["Unit 4/12 Harbour St", "Level 3, 1 Macquarie Pl"],
            countryCode: "61", trunkPrefix: "0", numberPatterns: ["2 5550 ####", "491 570 ###"],
            timeZone: "Australia/Sydney", utcOffsetMinutes: 600, latitude: -33_868_820, longitude: 151_209_296),
    ]
}
