#!/usr/bin/env python3
"""The operator console in headless Chromium (scripts/console-test runs this).

Against a wallet-server holding scripts/e2e's data: an admin logs in, sees the fraud case that
names the cheater, opens it, unfreezes and refreezes the named account with reasons (each
confirmed), and finds both actions in the audit log; forged posts without the CSRF token are
refused and change nothing; a user account is refused every page. It also records a review
of the case (confirmed) and finds it on the case and in the audit log. Every page is screenshotted
into --artifacts and each screenshot is checked: a real PNG of the window's size, not tiny, taken
after the page's expected text was found in the DOM.

Every wait is on an element or a URL (WebDriverWait), never a sleep: the machine may be loaded.
Selenium Manager is not used: the browser and driver are Debian's, at fixed paths.
"""
import argparse
import os
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1280, 1700
# A liveness bound for a loaded 2-core machine, not a speed check.
PATIENCE = 120

checks = 0


def ok(what):
    global checks
    checks += 1
    print(f"   ok: {what}", flush=True)


def fail(what):
    print(f"CONSOLE BROWSER TEST FAILED: {what}", file=sys.stderr, flush=True)
    sys.exit(1)


def expect(condition, what):
    if not condition:
        fail(what)
    ok(what)


class Console:
    def __init__(self, url, artifacts):
        self.url = url.rstrip("/")
        self.artifacts = artifacts
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    f"--window-size={WIDTH},{HEIGHT}", "--no-first-run", "--disable-extensions",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
            options.add_argument(arg)
        # Nothing is fetched: the driver is given, so Selenium Manager has nothing to resolve.
        os.environ["SE_OFFLINE"] = "true"
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(PATIENCE)
        self.wait = WebDriverWait(self.driver, PATIENCE)

    def quit(self):
        self.driver.quit()

    # Pages

    def open(self, path):
        self.driver.get(self.url + path)
        return self.h1()

    def h1(self):
        return self.wait.until(EC.presence_of_element_located((By.TAG_NAME, "h1"))).text

    def body(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def path(self):
        return urllib.parse.urlsplit(self.driver.current_url).path

    def until_h1(self, text):
        """Waits until the page's heading contains `text` (after a click that loads a page)."""
        try:
            self.wait.until(lambda d: text in d.find_element(By.TAG_NAME, "h1").text)
        except Exception:
            fail(f"the page never showed a heading with {text!r}; it shows {self.safe_h1()!r} at {self.driver.current_url}")

    def safe_h1(self):
        try:
            return self.driver.find_element(By.TAG_NAME, "h1").text
        except Exception:
            return "(no heading)"

    def mark(self):
        """Marks the current document, so that a wait can tell when another one has loaded."""
        self.driver.execute_script("document.documentElement.setAttribute('data-test-old', '1')")

    def until_new_document(self):
        """Waits until a document without the mark has loaded. (Selenium's staleness_of raced
        with Chromium here: the old node answered "does not belong to the document" as an
        unknown error, not as a stale element.) During the switch a script may find no
        context to run in: that is "not yet"."""
        def loaded(d):
            try:
                return d.execute_script(
                    "return document.readyState === 'complete' && !document.documentElement.hasAttribute('data-test-old')")
            except WebDriverException:
                return False
        self.wait.until(loaded)

    def click(self, selector, heading):
        """Clicks and waits for the page whose heading contains `heading`."""
        self.mark()
        self.driver.find_element(By.CSS_SELECTOR, selector).click()
        self.until_new_document()
        self.until_h1(heading)

    def shot(self, name, texts):
        """Checks the DOM shows every text, then saves and checks the screenshot."""
        body = self.body()
        for text in texts:
            expect(text in body, f"{name}: the page shows {text!r}")
        path = os.path.join(self.artifacts, name + ".png")
        # The whole page, not only the window: the viewport is made as tall as the document
        # (bounded) for the shot; a headless window cannot grow past its screen.
        height = min(8000, max(HEIGHT, self.driver.execute_script("return document.documentElement.scrollHeight")))
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False})
        try:
            if not self.driver.save_screenshot(path):
                fail(f"{name}: no screenshot saved")
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            fail(f"{name}: {path} is not a PNG")
        w, h = struct.unpack(">II", data[16:24])
        expect(w >= 800 and h >= 600 and len(data) > 8_000, f"{name}: screenshot {path} ({w}x{h}, {len(data)} bytes)")

    def log_in(self, email, password):
        self.open("/console/login")
        self.until_h1("Log in")
        self.driver.find_element(By.ID, "email").send_keys(email)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.mark()
        self.driver.find_element(By.ID, "login").click()
        self.until_new_document()
        return self.h1()

    def cookie(self, name):
        c = self.driver.get_cookie(name)
        return c["value"] if c else None


def post_outside(url, cookie, fields):
    """A form post from outside the browser with the browser's session cookie: the status."""
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=data, method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    request.add_header("Cookie", f"ow_console={cookie}")
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--artifacts", required=True)
    p.add_argument("--admin", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--named", required=True, help="the account the fraud cases name")
    p.add_argument("--password", required=True)
    a = p.parse_args()
    os.makedirs(a.artifacts, exist_ok=True)
    c = Console(a.url, a.artifacts)
    try:
        run(c, a)
    finally:
        c.quit()
    print(f"   {checks} checks passed; screenshots in {a.artifacts}")


def run(c, a):
    d = c.driver

    print("== anonymous: sent to the login page")
    for path in ["/console", "/console/fraud-cases", "/console/audit"]:
        c.open(path)
        expect(c.path() == "/console/login", f"anonymous {path} lands on the login page")
    c.shot("01-login", ["Log in", "Admin accounts only"])

    print("== the admin logs in: overview")
    c.log_in(a.admin, a.password)
    c.until_h1("Overview")
    expect(c.path() == "/console", "after login: the overview")
    session = d.get_cookie("ow_console")
    expect(session is not None and session.get("httpOnly") and session.get("sameSite") == "Strict" and session.get("path") == "/console",
           "session cookie HttpOnly, SameSite=Strict, Path=/console")
    expect(len(d.find_elements(By.CSS_SELECTOR, "svg.chart")) == 3, "three server-drawn SVG charts")
    expect("ok" in d.find_element(By.ID, "reconciliation").get_attribute("class").split(), "reconciliation shown green")
    c.shot("02-overview", ["Money in (net)", "Float", "Books: reconciled to the cent", "Redemptions credited", "Fraud cases opened"])

    print("== fraud cases: the list, then the case naming the cheater")
    c.click("nav a[href='/console/fraud-cases']", "Fraud cases")
    rows = d.find_elements(By.CSS_SELECTOR, "#cases tbody tr")
    expect(len(rows) >= 2, f"the fraud cases listed ({len(rows)})")
    c.shot("03-fraud-cases", [a.named, "recovered", "open"])
    Select(d.find_element(By.ID, "status")).select_by_value("recovered")
    c.click("form.filters button", "Fraud cases")
    recovered = d.find_elements(By.CSS_SELECTOR, "#cases tbody tr")
    expect(len(recovered) == 1 and a.named in recovered[0].text, "filter: one recovered case, naming the cheater")
    c.click("#cases tbody tr a[href^='/console/fraud-cases/']", "Fraud case #")
    named = d.find_element(By.ID, "named").text
    expect(a.named in named, f"the case names {a.named}")
    expect("d@e2e.test" in d.find_element(By.ID, "paid").text and a.named in d.find_element(By.ID, "paid").text,
           "who was paid from whom: D from A's account")
    c.shot("04-fraud-case", ["Transfer hash", "Spends state", "Signed by key", "Output 0", "Request nonce", "Signature",
                             "First spend", "Second spend", "The note"])

    print("== a review of the case, confirmed, then on the case and in the audit log")
    case_path = c.path()
    d.find_element(By.ID, "review-note").send_keys("console test: proof checked, owner contacted")
    c.click("#review", "Record a review")
    c.click("#confirm", "Fraud case #")
    expect(c.path() == case_path and "proof checked, owner contacted" in d.find_element(By.ID, "reviews").text
           and a.admin in d.find_element(By.ID, "reviews").text, "the review is shown on the case with who made it")

    print("== the named account: unfreeze, then freeze again, each with a reason and a confirmation")
    c.click("#named a", "Account")
    account_path = c.path()
    expect("frozen" in d.find_element(By.ID, "state").text, "the named account is frozen by the fraud case")
    c.shot("05-account", [a.named, "Wallet keys", "History", "fraud_recovery"])
    for verb, reason, state in [("Unfreeze", "console test: cleared after review", "active"),
                                ("Freeze", "console test: frozen again pending refund", "frozen")]:
        d.find_element(By.ID, "reason").send_keys(reason)
        c.click("#freeze", f"{verb} account")
        expect(reason in d.find_element(By.ID, "question").text, f"{verb}: the confirmation repeats the reason")
        if verb == "Unfreeze":
            c.shot("06-confirm", [f"{verb} account", "Reason for the audit log"])
        c.click("#confirm", "Account")
        expect(c.path() == account_path, f"{verb}: back on the account")
        expect(state in d.find_element(By.ID, "state").text, f"{verb}: the account is {state}")
        expect("audit log" in d.find_element(By.ID, "notice").text, f"{verb}: the notice says it is audited")

    print("== the audit log has both actions, who and when")
    c.click("nav a[href='/console/audit']", "Audit log")
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#audit tbody tr")]
    for action, reason in [("unfreeze", "cleared after review"), ("freeze", "frozen again pending refund"),
                           ("fraud_case_review", "proof checked, owner contacted")]:
        expect(any(action in r and reason in r and a.admin in r and "UTC" in r for r in rows), f"audit: {action} by {a.admin} with its reason and time")
    c.shot("07-audit", ["console_login", "fraud_case", "cleared after review", "frozen again pending refund"])
    Select(d.find_element(By.ID, "action")).select_by_value("unfreeze")
    c.click("form.filters button", "Audit log")
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#audit tbody tr")]
    expect(rows and all("unfreeze" in r for r in rows) and any("cleared after review" in r for r in rows), "audit filter: unfreeze only")
    audit_count = len(d.find_elements(By.CSS_SELECTOR, "#audit tbody tr"))

    print("== the other pages")
    c.click("nav a[href='/console/accounts']", "Accounts")
    c.shot("08-accounts", [a.named, a.user, a.admin])
    d.find_element(By.ID, "q").send_keys(a.named)
    c.click("#search", "Accounts")
    expect(len(d.find_elements(By.CSS_SELECTOR, "#accounts tbody tr")) == 1, "search: one account")
    c.click("nav a[href='/console/debtors']", "Debtors")
    c.shot("09-debtors", [a.named, "Total owed"])
    c.click("nav a[href='/console/settings']", "Settings")
    c.shot("10-settings", ["Issuing keys", "Most a wallet holds offline", "Double-spend policy", "Database schema"])
    expect("BEGIN" not in c.body() and "secret" not in c.body().lower().replace("nothing secret", ""), "settings show no secret")

    print("== forged posts without the CSRF token change nothing")
    freeze_url = a.url.rstrip("/") + account_path + "/freeze"
    cookie = c.cookie("ow_console")
    status = post_outside(freeze_url, cookie, {"frozen": "0", "reason": "forged outside", "confirm": "yes"})
    expect(status == 403, f"a post with the session cookie but no token: {status}")
    status = post_outside(freeze_url, cookie, {"frozen": "0", "reason": "forged outside", "confirm": "yes", "csrf": "A" * 43})
    expect(status == 403, f"a post with a wrong token: {status}")
    c.open(account_path)
    # The browser itself posts a same-origin form without the token (built in the page by the test).
    d.execute_script(
        "const f = document.createElement('form'); f.method = 'post'; f.action = arguments[0];"
        "for (const [k, v] of [['frozen', '0'], ['reason', 'forged in the browser'], ['confirm', 'yes']]) {"
        "  const i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.appendChild(i); }"
        "document.body.appendChild(f); f.submit();", account_path + "/freeze")
    c.until_h1("Refused")
    c.shot("11-forged-refused", ["security token is missing", "Nothing was changed"])
    # Another site's page posting to the console: the Strict cookie is not sent, the post is refused.
    d.get("data:text/html;charset=utf-8," + urllib.parse.quote(
        f'<h1>evil</h1><form method="post" action="{freeze_url}"><input type="hidden" name="frozen" value="0">'
        '<input type="hidden" name="reason" value="forged cross-site"><input type="hidden" name="confirm" value="yes">'
        '<button id="go">go</button></form>'))
    c.click("#go", "Refused")
    expect("Nothing was changed" in c.body(), "a cross-site form post is refused")
    c.open(account_path)
    expect("frozen" in d.find_element(By.ID, "state").text, "after the forgeries the account is still frozen")
    c.open("/console/audit?action=unfreeze")
    expect(len(d.find_elements(By.CSS_SELECTOR, "#audit tbody tr")) == audit_count and "forged" not in c.body(),
           "after the forgeries the audit log has no new unfreeze")

    print("== logout, then a user account is refused every page")
    c.open("/console")
    c.click("#logout", "Log in")
    expect(c.cookie("ow_console") is None, "logout removes the session cookie")
    status = post_outside(freeze_url, cookie, {"frozen": "0", "reason": "replayed after logout", "confirm": "yes"})
    expect(status == 403, f"the old session's cookie is refused after logout: {status}")
    heading = c.log_in(a.user, a.password)
    expect("Operators only" in heading, f"the user's login is refused: {heading!r}")
    expect(c.cookie("ow_console") is None, "no session cookie for the user")
    c.shot("12-user-refused", ["is a user account", "Nothing was opened"])
    for path in ["/console", "/console/fraud-cases", "/console/fraud-cases/1", "/console/accounts", account_path,
                 "/console/debtors", "/console/audit", "/console/settings"]:
        c.open(path)
        expect(c.path() == "/console/login" and a.named not in c.body(), f"the user is sent to the login page from {path}")


if __name__ == "__main__":
    main()
