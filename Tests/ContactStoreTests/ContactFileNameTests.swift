@testable import ContactStore
import Testing

/// Which names in a book's folder are contact files: visible, ending in `.vcf` in any case, with
/// no path separator.
@Suite struct ContactFileNameTests {
    @Test(arguments: [
        ("ada.vcf", true), ("ADA.VCF", true), ("Zoë.Vcf", true), ("東京.vcf", true), ("a b.vCF", true),
        (".vcf", false), (".hidden.vcf", false), ("notes.txt", false), ("vcf", false), ("a.vcf.tmp", false),
        ("a/b.vcf", false), ("dir/", false), ("", false), ("a.vc", false), ("a.vcg", false),
    ])
    func aContactFileIsAVisibleVCFNameWithoutSeparator(name: String, expected: Bool) {
        #expect(SafeFileName.isContactFile(name) == expected)
        // A substring's copy (its own storage) says the same.
        #expect(SafeFileName.isContactFile(String("x" + name).dropFirst().description) == expected)
    }
}
