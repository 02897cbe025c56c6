// cardsync's own driver for measuring ez-vcard (Debian libez-vcard-java) on jCard and xCard,
// the formats the shared peer driver does not cover. Same protocol as the shared drivers:
//   java EzFormatsBench INPUT.vcf RUNS
// reads the vCard file once, converts it to jCard and xCard in memory, then times RUNS
// repetitions of: write jCard, read jCard, write xCard, read xCard (JVM warmed up by one
// untimed round first). Prints one JSON line with the median seconds of each.
import ezvcard.Ezvcard;
import ezvcard.VCard;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class EzFormatsBench {
    interface Task { Object run() throws Exception; }

    static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    static double time(Task task, int runs) throws Exception {
        List<Double> seconds = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            Object result = task.run();
            seconds.add((System.nanoTime() - t0) / 1e9);
            if (result == null) throw new IllegalStateException("no result");
        }
        return median(seconds);
    }

    public static void main(String[] args) throws Exception {
        String text = new String(Files.readAllBytes(Paths.get(args[0])), StandardCharsets.UTF_8);
        int runs = Integer.parseInt(args[1]);
        List<VCard> cards = Ezvcard.parse(text).all();
        String json = Ezvcard.writeJson(cards).go();
        String xml = Ezvcard.writeXml(cards).go();
        // Warm-up round, untimed.
        Ezvcard.parseJson(json).all();
        Ezvcard.parseXml(xml).all();
        double writeJson = time(() -> Ezvcard.writeJson(cards).go(), runs);
        double readJson = time(() -> Ezvcard.parseJson(json).all(), runs);
        double writeXml = time(() -> Ezvcard.writeXml(cards).go(), runs);
        double readXml = time(() -> Ezvcard.parseXml(xml).all(), runs);
        System.out.println("{\"peer\":\"ez-vcard\",\"cards\":" + cards.size()
            + ",\"jcardBytes\":" + json.getBytes(StandardCharsets.UTF_8).length
            + ",\"xcardBytes\":" + xml.getBytes(StandardCharsets.UTF_8).length
            + ",\"writeJCard\":" + writeJson + ",\"readJCard\":" + readJson
            + ",\"writeXCard\":" + writeXml + ",\"readXCard\":" + readXml + "}");
    }
}
