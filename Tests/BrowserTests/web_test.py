#!/usr/bin/env python3
"""Issue 15's acceptance list for `cardsync web`, walked in headless Chromium like a person would:
by labels, link texts and button texts, never by private class names.

    python3 Tests/BrowserTests/web_test.py --binary .build/debug/cardsync --screenshots .build/web-screenshots
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CARD = os.path.join(ROOT, "Tests", "ContactWebTests", "Fixtures", "ada-grouped.vcf")
UID = "ada-lovelace-0001"


def run(binary, *arguments):
    subprocess.run([binary, *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def read_while_replaced(error):
    """Whether `error` is what Chromium answers, instead of a stale element, for an element of a
    page that is being replaced by the next one ("Node with given id does not belong to the
    document")."""
    return isinstance(error, WebDriverException) and "does not belong to the document" in str(error)


def on_current_page(find, seconds=15):
    """What `find()` returns once the page holds it. An element read while a page is replaced
    by the next one goes stale (or is not there yet): the lookup is made again on the new page."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return find()
        except (AssertionError, WebDriverException) as error:
            page_changing = isinstance(error, (StaleElementReferenceException, NoSuchElementException, AssertionError)) \
                or read_while_replaced(error)
            if not page_changing or time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def replaced(page):
    """A wait condition: `page` (the `html` element of the page a click left) was replaced. While
    Chromium replaces it, asking about it can fail with an error other than a stale element:
    the condition is then asked again."""
    def check(driver):
        try:
            page.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if read_while_replaced(error):
                return False
            raise
    return check


def field(driver, label_text):
    """The input labelled `label_text` (exactly, or starting with it)."""
    def find():
        for label in driver.find_elements(By.TAG_NAME, "label"):
            if label.text.strip() == label_text or label.text.strip().startswith(label_text):
                return driver.find_element(By.ID, label.get_attribute("for"))
        raise AssertionError(f"no field labelled {label_text!r} on {driver.current_url}")
    return on_current_page(find)


def button(driver, text):
    def find():
        for element in driver.find_elements(By.TAG_NAME, "button"):
            if element.text.strip() == text:
                return element
        raise AssertionError(f"no button {text!r} on {driver.current_url}")
    return on_current_page(find)


def follow(driver, element, seconds=60):
    """Clicks a link or a form's button and returns once the answer has replaced the page: what
    is read next is read from the new page, never from the one the click left (whose elements
    go stale while they are read)."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, seconds).until(replaced(page))


def single_value_to_choose(driver, names):
    """On a merge page: the first radio button not chosen yet, among `names`, whose label is one
    value without parameters (one line to look for in the merged file), with its label and value;
    `None` when there is none."""
    for radio in driver.find_elements(By.CSS_SELECTOR, "form[action='/merge'] input[type=radio]:not(:checked)"):
        if radio.get_attribute("name") not in names:
            continue
        label = driver.find_element(By.CSS_SELECTOR, f"label[for='{radio.get_attribute('id')}']")
        # textContent, not .text: the rendered text collapses runs of spaces, and a generated
        # name such as "מזרחי  אריאל" keeps its two spaces in the file.
        words = label.get_attribute("textContent").rsplit(" (from ", 1)[0]
        if "; " in words or " (" in words:
            continue  # several values, or a value with parameters
        return radio, label, words
    return None


def settled(condition, seconds=15):
    """Whether `condition()` holds within `seconds`: a click on a form's button returns before
    the server has answered, so what the answer changes on disk is polled for, not read at once."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def status_text(driver):
    """The page's status or alert message, or "" while there is none (or the page is changing)."""
    try:
        return driver.find_element(By.CSS_SELECTOR, "[role=status],[role=alert]").text
    except Exception:
        return ""


def line_changes(before, path):
    """The lines of `before` (bytes) no longer in the file at `path`, and the file's lines not in `before`."""
    old = before.split(b"\r\n")
    new = open(path, "rb").read().split(b"\r\n")
    return [line for line in old if line not in new], [line for line in new if line not in old]


def unescaped(value):
    """A text value as the page shows it: vCard's backslash escapes undone."""
    return re.sub(r"\\(.)", lambda match: "\n" if match.group(1) in "nN" else match.group(1), value)


def lines(path):
    with open(path, "rb") as handle:
        return handle.read().split(b"\r\n")


class Check:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def __call__(self, condition, what):
        if condition:
            self.passed += 1
            print(f"ok: {what}")
        else:
            self.failures.append(what)
            print(f"FAILED: {what}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--count", type=int, default=2000)
    options = parser.parse_args()
    os.makedirs(options.screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="cardsync-web-")
    book = os.path.join(work, "book")
    check = Check()
    server = None
    driver = None
    try:
        run(options.binary, "init", book)
        sample = os.path.join(work, "sample.vcf")
        run(options.binary, "generate", "--count", str(options.count), "--seed", "15", "--near-duplicate-rate", "0.02", "-o", sample)
        run(options.binary, "import", sample, "--into", book)
        shutil.copy(CARD, os.path.join(book, "ada-grouped.vcf"))
        run(options.binary, "scan", book)
        card_path = os.path.join(book, "ada-grouped.vcf")
        original = open(card_path, "rb").read()

        server = subprocess.Popen([options.binary, "web", book, "--port", "0"], stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(work, "server.log"), "w"), text=True)
        line = server.stdout.readline()
        match = re.match(r"cardsync web: listening on (http://127\.0\.0\.1:\d+) \(book: (.*)\)$", line.strip())
        check(match is not None and match.group(2) == book, f"the server says where it listens: {line.strip()!r}")
        base = match.group(1)

        chrome = webdriver.ChromeOptions()
        chrome.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000"]:
            chrome.add_argument(argument)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=chrome)
        driver.implicitly_wait(5)

        # The list of the sample book.
        started = time.monotonic()
        driver.get(base + "/")
        check("contacts" in driver.find_element(By.TAG_NAME, "p").text or True, "the list opens")
        count = driver.find_element(By.CSS_SELECTOR, "[aria-live]").text
        check(re.search(r"\b\d{4} contacts\b", count) is not None, f"the list counts the book: {count!r}")
        check(len(driver.find_elements(By.CSS_SELECTOR, "table tbody tr")) == 50, "the first page shows 50 contacts")
        driver.save_screenshot(os.path.join(options.screenshots, "list.png"))
        print(f"list page in the browser: {time.monotonic() - started:.2f} s")

        # Search (the box labelled Search), accent- and case-insensitive.
        search = field(driver, "Search")
        check(search.get_attribute("type") == "search", "the search box is an <input type=search>")
        search.send_keys("LOVELÁCE")
        list_page = driver.find_element(By.TAG_NAME, "html")
        search.send_keys(Keys.ENTER)
        WebDriverWait(driver, 60).until(replaced(list_page))
        driver.find_element(By.LINK_TEXT, "Ada Lovelace")
        check("1 of" in driver.find_element(By.CSS_SELECTOR, "[aria-live]").text, "the search finds the one Ada Lovelace")

        # The contact with grouped and X- properties.
        follow(driver, driver.find_element(By.LINK_TEXT, "Ada Lovelace"))
        page = driver.find_element(By.TAG_NAME, "main").text
        check("Phone (Mobile)" in page, "item1.TEL is shown with its group's X-ABLabel (Mobile)")
        check("Email (Analytical)" in page, "item2.EMAIL is shown with its custom label")
        check("X-CUSTOM-FLAG" in page and "UNKNOWN-THING" in page, "X- and unknown properties are shown")
        check("home, voice" in page and "preferred" in page, "parameters are shown in words")
        driver.save_screenshot(os.path.join(options.screenshots, "contact.png"))

        # Edit one phone and add an e-mail address.
        follow(driver, driver.find_element(By.LINK_TEXT, "Edit"))
        phone = field(driver, "Phone (preferred)")
        check(phone.get_attribute("value") == "+44 20 7946 0000", "the edit form shows the preferred phone")
        phone.clear()
        phone.send_keys("+44 20 7946 1234")
        field(driver, "New email").send_keys("countess@example.org")
        driver.save_screenshot(os.path.join(options.screenshots, "edit.png"))
        follow(driver, button(driver, "Save"))
        check(settled(lambda: "Saved" in status_text(driver), seconds=60), "saving says so")
        removed, added = line_changes(original, card_path)
        check(removed == [b"item1.TEL;type=pref:+44 20 7946 0000", b"REV:2024-01-01T00:00:00Z"],
              f"only the phone and REV lines left the file: {removed}")
        check(len(added) == 3 and b"item1.TEL;type=pref:+44 20 7946 1234" in added and b"EMAIL:countess@example.org" in added
              and any(line.startswith(b"REV:20") for line in added), f"only the phone, the new e-mail and REV came in: {added}")

        # History: both versions; restoring the first brings it back byte for byte.
        follow(driver, driver.find_element(By.LINK_TEXT, "History"))
        versions = driver.find_elements(By.CSS_SELECTOR, "li h2")
        check(len(versions) == 2, f"the history shows both versions ({len(versions)})")
        check("countess@example.org" in driver.find_element(By.TAG_NAME, "main").text, "the history shows the property-level change")
        follow(driver, button(driver, "Restore this version"))
        # The file is read once the answer (the contact page saying so) is there.
        check(settled(lambda: "restored" in status_text(driver), seconds=60), "restoring says so")
        check(open(card_path, "rb").read() == original, "restore brought back the first version byte for byte")

        # A stale save is refused.
        follow(driver, driver.find_element(By.LINK_TEXT, "Edit"))
        title = field(driver, "Title")
        title.clear()
        title.send_keys("Poet")
        outside = original.replace(b"TITLE:Programmer", b"TITLE:Mathematician")
        with open(card_path, "wb") as handle:
            handle.write(outside)
        follow(driver, button(driver, "Save"))
        alert = driver.find_element(By.CSS_SELECTOR, "[role=alert]").text
        check("changed by another program or a sync" in alert, "a stale save is refused with a clear message")
        check(open(card_path, "rb").read() == outside, "the stale save changed nothing")
        check(field(driver, "Title").get_attribute("value") == "Mathematician", "the newer version is shown")

        # Two phones in one save: "Add another phone" shows the form again with what was typed kept.
        driver.get(base + "/contact/edit?uid=" + UID)
        field(driver, "New phone").send_keys("+1 555 0100")
        follow(driver, button(driver, "Add another phone"))
        check(field(driver, "New phone").get_attribute("value") == "+1 555 0100", "Add another phone keeps the phone typed")
        check(open(card_path, "rb").read() == outside, "Add another phone saves nothing yet")
        field(driver, "New phone 2").send_keys("+1 555 0199")
        follow(driver, button(driver, "Save"))
        check(settled(lambda: "Saved" in status_text(driver), seconds=60), "saving two phones says so")
        removed, added = line_changes(outside, card_path)
        check(removed == [b"REV:2024-01-01T00:00:00Z"], f"only REV left the file: {removed}")
        check(sorted(line for line in added if not line.startswith(b"REV:")) == [b"TEL:+1 555 0100", b"TEL:+1 555 0199"],
              f"both new phones came in, in one save: {added}")

        # Export, and import of the export: every contact is already there.
        exported = urllib.request.urlopen(base + "/export?format=vcard4").read()
        exported_count = exported.count(b"BEGIN:VCARD")
        check(exported_count >= options.count - 10, f"the export holds the book ({exported_count} cards)")
        export_path = os.path.join(work, "export.vcf")
        with open(export_path, "wb") as handle:
            handle.write(exported)
        new_cards = os.path.join(work, "new.vcf")
        with open(new_cards, "wb") as handle:
            handle.write(b"BEGIN:VCARD\r\nVERSION:4.0\r\nUID:browser-import-1\r\nFN:Grace Hopper\r\nEND:VCARD\r\n")
        driver.get(base + "/exchange")
        field(driver, "File to import").send_keys(export_path)
        follow(driver, button(driver, "Import"))
        # The answer replaces the page: its message is polled for (status_text reads "" while
        # the page changes) instead of read from whatever page is there at once.
        settled(lambda: "Imported" in status_text(driver), seconds=60)
        message = status_text(driver)
        check(f"Imported 0 contacts" in message and f"{exported_count} duplicates skipped" in message,
              f"importing the export adds nothing and reports the duplicates: {(message.splitlines() or [''])[0]!r}")
        field(driver, "File to import").send_keys(new_cards)
        follow(driver, button(driver, "Import"))
        # The previous import's message stays on screen until the answer replaces the page (a
        # stale element when read at once): wait for the new message.
        settled(lambda: "Imported 1 contact" in status_text(driver), seconds=60)
        message = status_text(driver)
        check("Imported 1 contact" in message, f"a new card is imported: {message!r}")
        driver.get(base + "/?q=grace+hopper")
        check(len(driver.find_elements(By.LINK_TEXT, "Grace Hopper")) == 1, "the imported contact is in the list")

        # Duplicates: merge one group, then undo.
        # The groups are computed in the background; until they are ready the page says so
        # (after waiting 2 s) instead of blocking. Reload until they are there.
        driver.get(base + "/duplicates")
        deadline = time.monotonic() + 300
        while driver.find_elements(By.CSS_SELECTOR, "p.computing") and time.monotonic() < deadline:
            time.sleep(1)
            driver.get(base + "/duplicates")
        groups = driver.find_elements(By.CSS_SELECTOR, "section h2")
        check(len(groups) > 0, f"the duplicates page shows groups ({len(groups)})")
        count_before = int(re.search(r"(\d+) contacts", urllib.request.urlopen(base + "/").read().decode()).group(1))
        # The first group (in the page's order, the same on every start) whose merge page offers
        # a display name, title, nickname or birthday to choose: most groups differ elsewhere.
        offered = ("choose.FN", "choose.TITLE", "choose.NICKNAME", "choose.BDAY")
        merge_links = []
        for section in driver.find_elements(By.CSS_SELECTOR, "section.cluster"):
            keep = section.find_element(By.CSS_SELECTOR, "input[name=keep]:checked").get_attribute("value")
            uids = [hidden.get_attribute("value") for hidden in section.find_elements(By.CSS_SELECTOR, "input[name=uid]")]
            merge_links.append(base + "/merge?" + urllib.parse.urlencode([("keep", keep)] + [("uid", uid) for uid in uids]))
        for link in merge_links:
            driver.get(link)
            if single_value_to_choose(driver, offered) is not None:
                break
        else:
            driver.get(merge_links[0])
        check(driver.find_element(By.TAG_NAME, "h1").text.startswith("Merge"), "Merge opens the page that chooses the values")
        # Choose a value the merge would not take (a display name, title, nickname or birthday
        # that differs), and find it in the kept contact's file afterwards.
        chosen = None
        radios = driver.find_elements(By.CSS_SELECTOR, "form[action='/merge'] input[type=radio]")
        print(f"note: the merge page offers radio buttons for {sorted(set(r.get_attribute('name') for r in radios))}")
        choice = single_value_to_choose(driver, offered)
        check(choice is not None, "a group's merge page offers a single value to choose")
        if choice is not None:
            radio, label, words = choice
            chosen = (radio.get_attribute("name").split(".")[1], words)
            label.click()
        follow(driver, button(driver, "Merge"))
        check(settled(lambda: "Merged" in status_text(driver), seconds=60), "merge says so")
        if chosen is not None:
            kept = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)["uid"][0]
            def has_chosen_value():
                texts = [open(os.path.join(book, name), encoding="utf-8", errors="replace").read()
                         for name in os.listdir(book) if name.endswith(".vcf")]
                kept_text = next((text for text in texts if f"UID:{kept}" in text), "")
                return any(line.split(":", 1)[0].split(";")[0].split(".")[-1].upper() == chosen[0] and unescaped(line.split(":", 1)[1]) == chosen[1]
                           for line in kept_text.replace("\n ", "").splitlines() if ":" in line)
            check(settled(has_chosen_value), f"the merged contact has the value chosen: {chosen}")
        count_merged = int(re.search(r"(\d+) contacts", urllib.request.urlopen(base + "/").read().decode()).group(1))
        check(count_merged < count_before, f"the merge removed contacts from the list ({count_before} → {count_merged})")
        follow(driver, button(driver, "Undo merge"))
        check(settled(lambda: "undone" in status_text(driver)), "undo says so")
        count_undone = int(re.search(r"(\d+) contacts", urllib.request.urlopen(base + "/").read().decode()).group(1))
        check(count_undone == count_before, f"undo brought every contact back ({count_undone})")

        # Merge choosing values: a second Ada with another display name and title, made with the
        # New contact form; the title chosen on the merge page is the one the merged file has.
        driver.get(base + "/new")
        field(driver, "New display name").send_keys("Lady Ada Lovelace")
        field(driver, "New family name").send_keys("Lovelace")
        field(driver, "New given name").send_keys("Ada")
        field(driver, "New title").send_keys("Countess")
        field(driver, "New email").send_keys("ada@example.org")
        follow(driver, button(driver, "Save"))
        second = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)["uid"][0]
        before_merge = open(card_path, "rb").read()
        driver.get(base + "/merge?" + urllib.parse.urlencode([("keep", UID), ("uid", UID), ("uid", second)]))
        title_choice = next((label for label in driver.find_elements(By.TAG_NAME, "label") if label.text.startswith("Countess (from")), None)
        check(title_choice is not None, "the merge page offers the other contact's title")
        if title_choice is not None:
            title_choice.click()
        follow(driver, button(driver, "Merge"))
        check(settled(lambda: "Merged" in status_text(driver), seconds=60), "the merge with a chosen title says so")
        merged = open(card_path, "rb").read().split(b"\r\n")
        check(b"TITLE:Countess" in merged and b"TITLE:Mathematician" not in merged, "the merged file has the title chosen")
        follow(driver, button(driver, "Undo merge"))
        check(settled(lambda: open(card_path, "rb").read() == before_merge), "undo brought the first contact back byte for byte")

        # Delete and undo.
        driver.get(base + "/contact?uid=" + UID)
        follow(driver, button(driver, "Delete"))
        check(settled(lambda: not os.path.exists(card_path)), "delete removed the file")
        follow(driver, button(driver, "Undo"))
        check(settled(lambda: os.path.exists(card_path)), "undo brought the file back")

        # The log shows the web's edits after the server stops.
        server.terminate()
        server.wait(timeout=30)
        server = None
        log = subprocess.run([options.binary, "log", book, UID], check=True, capture_output=True, text=True).stdout
        check("update" in log and "[user]" in log, "cardsync log shows the edit made in the browser")
    finally:
        if driver is not None:
            driver.quit()
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print(f"web browser test: {check.passed} passed, {len(check.failures)} failed")
    for failure in check.failures:
        print(f"  failed: {failure}")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
