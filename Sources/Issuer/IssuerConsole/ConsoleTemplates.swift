/// The console's mustache templates and style sheet, compiled into the binary so the console
/// works from any working directory. Every value is written with `{{ }}` (HTML-escaped); the
/// only `{{{ }}}` are the SVG charts, which `SVGChart` builds from numbers and escapes itself.
enum ConsoleTemplates {
    static let all: [String: String] = [
        "layout": layout, "login": login, "message": message, "overview": overview, "cases": cases, "case": fraudCase,
        "accounts": accounts, "account": account, "confirm": confirm, "debtors": debtors, "audit": audit, "settings": settings,
        "transfer": transferFields,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Offline Wallet console</title>
        <link rel="stylesheet" href="/console/console.css">
        </head>
        <body>
        <header>
        <span class="brand">Offline Wallet · operator console</span>
        {{#chrome}}
        <nav>{{#nav}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>{{/nav}}</nav>
        <form class="logout" method="post" action="/console/logout"><input type="hidden" name="csrf" value="{{csrf}}"><span class="who">{{email}}</span> <button type="submit" id="logout">Log out</button></form>
        {{/chrome}}
        </header>
        <main>
        <h1>{{title}}</h1>
        {{#notice}}<p class="notice" id="notice">{{notice}}</p>{{/notice}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """

    static let login = """
        {{<layout}}{{$content}}
        <form class="login" method="post" action="/console/login">
        <input type="hidden" name="csrf" value="{{loginToken}}">
        <label>Email <input type="email" name="email" id="email" value="{{email}}" autocomplete="username" required></label>
        <label>Password <input type="password" name="password" id="password" autocomplete="current-password" required></label>
        <button type="submit" id="login">Log in</button>
        </form>
        <p class="hint">Admin accounts only (<code>wallet-server create-admin</code>). Logins are rate-limited as the API's are.</p>
        {{/content}}{{/layout}}
        """

    /// Refusals and errors: a title, a sentence and where to go next.
    static let message = """
        {{<layout}}{{$content}}
        <p class="message" id="message">{{text}}</p>
        {{#link}}<p><a href="{{href}}">{{label}}</a></p>{{/link}}
        {{/content}}{{/layout}}
        """

    static let overview = """
        {{<layout}}{{$content}}
        <section class="tiles">
        {{#tiles}}<div class="tile"><div class="label">{{label}}</div><div class="value">{{value}}</div>{{#hint}}<div class="hint">{{hint}}</div>{{/hint}}</div>{{/tiles}}
        </section>
        <section class="recon {{reconClass}}" id="reconciliation">
        <h2>Books: {{reconStatus}}</h2>
        <table class="numbers">
        {{#reconRows}}<tr><th>{{label}}</th><td>{{value}}</td></tr>{{/reconRows}}
        </table>
        {{#hasProblems}}<ul class="problems">{{#problems}}<li>{{.}}</li>{{/problems}}</ul>{{/hasProblems}}
        </section>
        <section class="recon {{escrowClass}}" id="escrow">
        <h2>Escrow: {{escrowStatus}}</h2>
        {{#hasEscrowRows}}<table class="numbers">{{#escrowRows}}<tr><th>{{label}}</th><td>{{value}}</td></tr>{{/escrowRows}}</table>{{/hasEscrowRows}}
        </section>
        <section>
        <h2>Over time</h2>
        <p class="range">{{#ranges}}<a href="/console?range={{key}}"{{#current}} aria-current="true"{{/current}}>{{label}}</a> {{/ranges}}</p>
        <h3>Redemptions credited ({{rangeLabel}})</h3>
        {{{redemptionCountChart}}}
        <h3>Value redeemed ({{rangeLabel}})</h3>
        {{{redemptionAmountChart}}}
        <h3>Fraud cases opened ({{rangeLabel}})</h3>
        {{{fraudChart}}}
        </section>
        {{/content}}{{/layout}}
        """

    static let cases = """
        {{<layout}}{{$content}}
        <form class="filters" method="get" action="/console/fraud-cases">
        <label>Status <select name="status" id="status">{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/statuses}}</select></label>
        <label>Account <input type="text" name="account" value="{{account}}" inputmode="numeric" size="8"></label>
        <button type="submit">Filter</button>
        </form>
        <table class="list" id="cases">
        <thead><tr><th>Case</th><th>Opened</th><th>Status</th><th>Amount</th><th>Named account</th><th>Cheating key</th><th>First spend</th><th>Paid</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="/console/fraud-cases/{{id}}">#{{id}}</a></td><td>{{opened}}</td><td><span class="status {{status}}">{{statusLabel}}</span></td><td class="num">{{amount}}</td>
        <td>{{#cheater}}<a href="/console/accounts/{{id}}">{{email}}</a>{{/cheater}}{{^cheater}}none{{/cheater}}</td><td><code>{{keyID}}</code></td><td>{{firstKind}}</td>
        <td>{{#beneficiary}}<a href="/console/accounts/{{id}}">{{email}}</a>{{/beneficiary}}{{^beneficiary}}nobody{{/beneficiary}}</td></tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="8">No fraud case matches.</td></tr>{{/rows}}
        </tbody>
        </table>
        {{/content}}{{/layout}}
        """

    /// One decoded transfer, field by field (a partial of the case page).
    static let transferFields = """
        <table class="fields">
        <tr><th>Transfer hash</th><td><code>{{hash}}</code></td></tr>
        <tr><th>Spends state</th><td><code>{{input}}</code></td></tr>
        <tr><th>Signed by key</th><td><code>{{signer}}</code></td></tr>
        {{#outputs}}<tr><th>Output {{index}}</th><td>{{amount}} to key <code>{{owner}}</code> {{#account}}(account <a href="/console/accounts/{{id}}">{{email}}</a>){{/account}}{{^account}}(no account){{/account}}<br>new state <code>{{state}}</code></td></tr>{{/outputs}}
        <tr><th>Request nonce</th><td><code>{{nonce}}</code></td></tr>
        <tr><th>Created</th><td>{{created}}</td></tr>
        <tr><th>Signature</th><td><code class="wrap">{{signature}}</code></td></tr>
        <tr><th>Size</th><td>{{size}} bytes</td></tr>
        </table>
        """

    static let fraudCase = """
        {{<layout}}{{$content}}
        <section class="summary" id="summary">
        <table class="fields">
        <tr><th>Status</th><td><span class="status {{status}}">{{statusLabel}}</span></td></tr>
        <tr><th>Opened</th><td>{{opened}}</td></tr>
        <tr><th>Amount at stake</th><td>{{amount}}</td></tr>
        <tr><th>Double-spent state</th><td><code>{{state}}</code></td></tr>
        <tr><th>Key that signed twice</th><td><code>{{cheaterKey}}</code></td></tr>
        <tr><th>Named account</th><td id="named">{{#cheater}}<a href="/console/accounts/{{id}}">{{email}}</a> (account {{id}}, balance {{balance}}, {{#frozen}}frozen{{/frozen}}{{^frozen}}not frozen{{/frozen}}){{/cheater}}{{^cheater}}the key is registered to no account{{/cheater}}</td></tr>
        <tr><th>Who was paid from whom</th><td id="paid">{{#movements}}{{amount}} to <a href="/console/accounts/{{toID}}">{{to}}</a> from <a href="/console/accounts/{{fromID}}">{{from}}</a> ({{kind}}, journal {{journalID}}, {{at}})<br>{{/movements}}{{^movements}}{{paidSummary}}{{/movements}}</td></tr>
        </table>
        </section>
        <section class="actions" id="reviews">
        <h2>Reviews</h2>
        <ul>{{#reviews}}<li>{{at}}: {{who}}: {{note}}</li>{{/reviews}}{{^reviews}}<li>Not reviewed yet.</li>{{/reviews}}</ul>
        <form method="post" action="/console/fraud-cases/{{caseID}}/review">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>What was checked or done (goes into the audit log) <input type="text" name="note" id="review-note" size="60" required minlength="3" maxlength="500"></label>
        <button type="submit" id="review">Record a review…</button>
        </form>
        </section>
        {{#cheater}}
        <section class="actions" id="actions">
        <h2>Actions</h2>
        <form method="post" action="/console/accounts/{{id}}/freeze">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="frozen" value="{{#frozen}}0{{/frozen}}{{^frozen}}1{{/frozen}}">
        <input type="hidden" name="back" value="case">
        <input type="hidden" name="case" value="{{caseID}}">
        <label>Reason (goes into the audit log) <input type="text" name="reason" size="50" required minlength="3" maxlength="500"></label>
        <button type="submit">{{#frozen}}Unfreeze{{/frozen}}{{^frozen}}Freeze{{/frozen}} {{email}}…</button>
        </form>
        </section>
        {{/cheater}}
        <section id="note">
        <h2>The note</h2>
        <table class="fields">
        <tr><th>Note id</th><td><code>{{note.id}}</code></td></tr>
        <tr><th>Issued by key</th><td><code>{{note.issuer}}</code></td></tr>
        <tr><th>Amount</th><td>{{note.amount}}</td></tr>
        <tr><th>Bought by key</th><td><code>{{note.owner}}</code> {{#note.account}}(account <a href="/console/accounts/{{id}}">{{email}}</a>){{/note.account}}</td></tr>
        <tr><th>Issued</th><td>{{note.issued}}</td></tr>
        <tr><th>Expires</th><td>{{note.expires}}</td></tr>
        <tr><th>Transfers before the double spend</th><td>{{note.hops}}</td></tr>
        </table>
        </section>
        <section id="first">
        <h2>First spend</h2>
        {{#first}}{{> transfer}}{{/first}}
        {{^first}}{{#firstRedemption}}<p id="first-redemption">A redemption: {{#account}}<a href="/console/accounts/{{id}}">{{email}}</a> (account {{id}}){{/account}}{{^account}}account {{accountID}}, which no longer exists,{{/account}} redeemed the state for {{amount}} on {{at}}.</p>{{/firstRedemption}}
        {{^firstRedemption}}<p>{{firstSummary}}</p>{{/firstRedemption}}{{/first}}
        </section>
        <section id="second">
        <h2>Second spend</h2>
        {{#second}}{{> transfer}}{{/second}}
        {{^second}}<p>{{secondSummary}}</p>{{/second}}
        </section>
        {{/content}}{{/layout}}
        """

    static let accounts = """
        {{<layout}}{{$content}}
        <form class="filters" method="get" action="/console/accounts">
        <label>Email or id <input type="search" name="q" id="q" value="{{q}}"></label>
        <button type="submit" id="search">Search</button>
        </form>
        <table class="list" id="accounts">
        <thead><tr><th>Id</th><th>Email</th><th>Role</th><th>Settled balance</th><th>Offline notes bought</th><th>Frozen</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="/console/accounts/{{id}}">{{id}}</a></td><td><a href="/console/accounts/{{id}}">{{email}}</a></td><td>{{role}}</td><td class="num">{{balance}}</td><td class="num">{{notes}}</td><td>{{#frozen}}<span class="status bad">frozen</span>{{/frozen}}</td></tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="6">No account matches.</td></tr>{{/rows}}
        </tbody>
        </table>
        {{/content}}{{/layout}}
        """

    static let account = """
        {{<layout}}{{$content}}
        <section class="summary" id="summary">
        <table class="fields">
        <tr><th>Account</th><td>{{id}}</td></tr>
        <tr><th>Email</th><td id="account-email">{{email}}</td></tr>
        <tr><th>Role</th><td>{{role}}</td></tr>
        <tr><th>Settled balance</th><td>{{balance}}</td></tr>
        <tr><th>Offline notes bought, unredeemed</th><td>{{notes}}</td></tr>
        <tr><th>State</th><td id="state">{{#frozen}}<span class="status bad">frozen</span>{{/frozen}}{{^frozen}}<span class="status ok">active</span>{{/frozen}}</td></tr>
        <tr><th>Fraud cases</th><td><a href="/console/fraud-cases?account={{id}}">cases naming this account</a> · <a href="/console/audit?q=account+{{id}}">audit lines</a></td></tr>
        </table>
        </section>
        {{#canFreeze}}
        <section class="actions" id="actions">
        <h2>{{#frozen}}Unfreeze{{/frozen}}{{^frozen}}Freeze{{/frozen}}</h2>
        <form method="post" action="/console/accounts/{{id}}/freeze" id="freeze-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="frozen" value="{{#frozen}}0{{/frozen}}{{^frozen}}1{{/frozen}}">
        <label>Reason (required; goes into the audit log) <input type="text" name="reason" id="reason" size="50" required minlength="3" maxlength="500"></label>
        <button type="submit" id="freeze">{{#frozen}}Unfreeze{{/frozen}}{{^frozen}}Freeze{{/frozen}} this account…</button>
        </form>
        </section>
        {{/canFreeze}}
        <section id="keys">
        <h2>Wallet keys</h2>
        <table class="list">
        <thead><tr><th>Key id</th><th>Public key</th><th>Registered</th><th>State</th></tr></thead>
        <tbody>{{#keys}}<tr><td><code>{{keyID}}</code></td><td><code class="wrap">{{publicKey}}</code></td><td>{{registered}}</td><td>{{#retired}}<span class="status bad">retired</span> {{retired}}{{/retired}}{{^retired}}in use{{/retired}}</td></tr>{{/keys}}
        {{^keys}}<tr><td colspan="4">No wallet key registered.</td></tr>{{/keys}}</tbody>
        </table>
        </section>
        <section id="history">
        <h2>History</h2>
        <table class="list">
        <thead><tr><th>Journal</th><th>When</th><th>Kind</th><th>Amount</th><th>Counterparty</th><th>Reference</th></tr></thead>
        <tbody>{{#history}}<tr><td>{{id}}</td><td>{{at}}</td><td>{{kind}}</td><td class="num">{{amount}}</td><td>{{#counterparty}}{{direction}} <a href="/console/accounts/{{id}}">{{email}}</a>{{/counterparty}}</td><td><code>{{reference}}</code></td></tr>{{/history}}
        {{^history}}<tr><td colspan="6">No movement yet.</td></tr>{{/history}}</tbody>
        </table>
        </section>
        {{/content}}{{/layout}}
        """

    /// The confirmation step of every action: what will happen, and one more press.
    static let confirm = """
        {{<layout}}{{$content}}
        <p class="confirm" id="question">{{question}}</p>
        <form method="post" action="{{action}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
        <input type="hidden" name="confirm" value="yes">
        <button type="submit" id="confirm">{{button}}</button>
        <a href="{{cancel}}" id="cancel">Cancel</a>
        </form>
        {{/content}}{{/layout}}
        """

    static let debtors = """
        {{<layout}}{{$content}}
        <p>Accounts with a negative settled balance. A double spender is charged for the honest later receiver's credit (in the default policy) and frozen; an owner whose old device paid a note that a restore had already exchanged is charged for that payment (a restore conflict) and not frozen. The cases naming an account tell which.</p>
        <table class="list" id="debtors">
        <thead><tr><th>Id</th><th>Email</th><th>Owes</th><th>Frozen</th><th>Why</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="/console/accounts/{{id}}">{{id}}</a></td><td><a href="/console/accounts/{{id}}">{{email}}</a></td><td class="num">{{owes}}</td><td>{{#frozen}}<span class="status bad">frozen</span>{{/frozen}}{{^frozen}}no{{/frozen}}</td><td><a href="/console/fraud-cases?account={{id}}">cases naming it</a></td></tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="5">No account is in debt.</td></tr>{{/rows}}
        </tbody>
        </table>
        {{#hasRows}}<p>Total owed: {{total}}</p>{{/hasRows}}
        {{/content}}{{/layout}}
        """

    static let audit = """
        {{<layout}}{{$content}}
        <form class="filters" method="get" action="/console/audit">
        <label>Action <select name="action" id="action">{{#actions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/actions}}</select></label>
        <label>Actor account <input type="text" name="actor" value="{{actorFilter}}" inputmode="numeric" size="8"></label>
        <label>Detail contains <input type="search" name="q" value="{{q}}"></label>
        <button type="submit">Filter</button>
        </form>
        <table class="list" id="audit">
        <thead><tr><th>#</th><th>When</th><th>Who</th><th>Action</th><th>Detail</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td>{{id}}</td><td>{{at}}</td><td>{{#actor}}<a href="/console/accounts/{{id}}">{{email}}</a>{{/actor}}{{^actor}}the issuer{{/actor}}</td><td>{{action}}</td><td>{{detail}}</td></tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="5">No audit line matches.</td></tr>{{/rows}}
        </tbody>
        </table>
        {{#older}}<p><a href="{{.}}" id="older">Older lines</a></p>{{/older}}
        {{/content}}{{/layout}}
        """

    static let settings = """
        {{<layout}}{{$content}}
        <p>What this server runs with. Nothing secret is shown: no key, password or token.</p>
        {{#groups}}
        <section>
        <h2>{{name}}</h2>
        <table class="fields">{{#rows}}<tr><th>{{label}}</th><td>{{value}}</td></tr>{{/rows}}</table>
        </section>
        {{/groups}}
        <section id="keyset">
        <h2>Issuing keys (keyset {{sequence}}, signed {{keysetSigned}})</h2>
        <table class="list">
        <thead><tr><th>Key id</th><th>Valid from (rotated in)</th><th>Valid until</th><th>Now</th></tr></thead>
        <tbody>{{#keys}}<tr><td><code>{{keyID}}</code></td><td>{{from}}</td><td>{{until}}</td><td>{{state}}</td></tr>{{/keys}}</tbody>
        </table>
        </section>
        {{/content}}{{/layout}}
        """

    /// The one style sheet, served as /console/console.css (the policy allows no inline style).
    static let css = """
        :root { --ok: #1b7f3b; --bad: #b3261e; --ink: #1d1d1f; --muted: #5f6368; --line: #d7d7db; --bg: #fafafa; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 1em; padding: .6em 1.2em; background: #20232a; color: #fff; }
        header a { color: #cfe3ff; text-decoration: none; margin-right: .9em; }
        header a[aria-current] { color: #fff; font-weight: 600; border-bottom: 2px solid #fff; }
        .brand { font-weight: 700; margin-right: 1em; }
        .logout { margin-left: auto; }
        .who { color: #ddd; margin-right: .5em; }
        main { padding: 1em 1.4em 3em; max-width: 1200px; }
        h1 { font-size: 1.5em; margin: .3em 0 .8em; }
        h2 { font-size: 1.15em; margin: 1.4em 0 .5em; }
        h3 { font-size: 1em; margin: 1em 0 .3em; color: var(--muted); }
        table { border-collapse: collapse; background: #fff; }
        th, td { text-align: left; padding: .3em .7em; border-bottom: 1px solid var(--line); vertical-align: top; }
        table.list { width: 100%; }
        td.num, .numbers td { text-align: right; font-variant-numeric: tabular-nums; }
        code { font: 13px ui-monospace, Menlo, Consolas, monospace; }
        code.wrap { word-break: break-all; }
        .tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: .8em; }
        .tile { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .7em .9em; }
        .tile .label, .hint { color: var(--muted); font-size: .85em; }
        .tile .value { font-size: 1.3em; font-weight: 600; font-variant-numeric: tabular-nums; }
        .recon { border-left: 6px solid var(--line); padding: .2em 1em .8em; margin-top: 1.2em; background: #fff; }
        .recon.ok { border-color: var(--ok); }
        .recon.ok h2 { color: var(--ok); }
        .recon.bad { border-color: var(--bad); }
        .recon.bad h2 { color: var(--bad); }
        .status { padding: .05em .45em; border-radius: 4px; background: #eee; }
        .status.open, .status.bad { background: #fde7e6; color: var(--bad); }
        .status.recovered, .status.ok { background: #e4f4e8; color: var(--ok); }
        .status.restore_conflict { background: #fff3cd; color: #7a5a00; }
        .notice { background: #e4f4e8; border: 1px solid var(--ok); padding: .5em .8em; }
        .message { font-size: 1.1em; }
        .confirm { font-size: 1.1em; background: #fff3cd; border: 1px solid #e0c060; padding: .7em 1em; }
        form.filters, form.login { display: flex; flex-wrap: wrap; gap: .8em; align-items: end; margin-bottom: 1em; }
        form.login { flex-direction: column; align-items: start; max-width: 22em; }
        label { display: inline-flex; flex-direction: column; gap: .2em; font-size: .9em; color: var(--muted); }
        input, select, button { font: inherit; padding: .3em .5em; }
        button { cursor: pointer; }
        .range a { margin-right: .6em; }
        .range a[aria-current] { font-weight: 700; }
        svg.chart { width: 100%; max-width: 760px; height: auto; background: #fff; border: 1px solid var(--line); }
        svg.chart .bar { fill: #3a6ea5; }
        svg.chart .axis { stroke: #888; stroke-width: 1; }
        svg.chart .tick { fill: var(--muted); font-size: 11px; }
        """
}
