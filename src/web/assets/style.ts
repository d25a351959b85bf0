/** The one stylesheet of both areas (served as /res/style.css; compiled into dist with the code, no CDN). */
export const STYLE_CSS = `:root{--fg:#1b1f24;--bg:#fff;--mut:#5b6470;--acc:#0b5cad;--ok:#1d6b2f;--bad:#a4161a;--line:#d8dde3;--head:#f3f5f7;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ec;--bg:#14171a;--mut:#a3acb6;--acc:#6cb2ff;--ok:#6fd28a;--bad:#ff8a8d;--line:#323a43;--head:#1e2328}}
*{box-sizing:border-box}body{margin:0;color:var(--fg);background:var(--bg);line-height:1.4}
a{color:var(--acc)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid var(--acc);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px;z-index:9}
header{padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--head)}h1{font-size:1.25rem;margin:.25rem 0}
.langs{float:right;margin:0}.langs a{margin-left:.5rem}.langs a[aria-current]{font-weight:bold}
.facts{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;margin:.25rem 0;font-size:.9rem}.facts div{display:flex;gap:.3rem}.facts dt{color:var(--mut)}.facts dd{margin:0}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem .9rem;list-style:none;padding:0;margin:.4rem 0 0}nav a[aria-current]{font-weight:bold;text-decoration:none}
main{padding:1rem;max-width:100%}main:focus{outline:none}
.scroll{overflow:auto;max-height:85vh;max-width:100%;margin:0 0 1.25rem}thead th{position:sticky;top:0;z-index:1}table{border-collapse:collapse;font-size:.85rem;min-width:100%}
caption{text-align:left;font-weight:600;padding:.3rem 0}.count{color:var(--mut);font-weight:normal}
th,td{border:1px solid var(--line);padding:.25rem .4rem;text-align:left;vertical-align:top;white-space:nowrap}th{background:var(--head)}
td.wrap{white-space:normal;max-width:24rem;overflow-wrap:anywhere}pre.wrap{white-space:pre-wrap;overflow-wrap:anywhere;max-width:48rem;margin:0}
form.panel{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.5rem 1rem;align-items:end;margin:0 0 1rem;padding:.75rem;border:1px solid var(--line);border-radius:6px}
form.panel label{display:block;font-size:.85rem;color:var(--mut)}.field:has(textarea){grid-column:1/-1}form.panel label.check{color:var(--fg)}
input,select,textarea{font:inherit;padding:.3rem;border:1px solid var(--line);border-radius:4px;width:100%;background:var(--bg);color:var(--fg)}input[type=checkbox]{width:auto}
button{font:inherit;padding:.35rem .8rem;border:1px solid var(--acc);border-radius:4px;background:var(--acc);color:#fff;cursor:pointer}
button.minor{background:transparent;color:var(--acc)}button.danger{background:var(--bad);border-color:var(--bad)}
table.pin-last tr>:last-child{position:sticky;right:0;background:var(--bg);box-shadow:-2px 0 0 var(--line)}table.pin-last th:last-child{background:var(--head);z-index:2}
form.inline{display:inline}td form.inline button{padding:.1rem .4rem;font-size:.8rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;grid-column:1/-1}
.ok{color:var(--ok)}.bad{color:var(--bad)}p.ok,p.bad{font-weight:600}
progress{width:6rem;vertical-align:middle}.fresh{color:var(--ok)}.late{color:#b36b00}.stale{color:var(--bad)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,28rem),1fr));gap:1rem;margin:0 0 1.25rem}.charts figure{margin:0;min-width:0}
figcaption{font-weight:600;margin:0 0 .25rem}svg.chart{width:100%;height:auto;display:block;font-size:11px;fill:var(--mut)}svg.chart .axis{stroke:var(--line)}
svg.chart polyline{fill:none;stroke-width:2}svg.chart .in{stroke:var(--acc)}svg.chart .out{stroke:var(--ok)}
svg.chart rect.done,.legend i.done{fill:var(--ok);background:var(--ok)}svg.chart rect.error,.legend i.error{fill:var(--bad);background:var(--bad)}
svg.chart rect.running,.legend i.running{fill:var(--acc);background:var(--acc)}svg.chart rect.other,.legend i.other{fill:var(--mut);background:var(--mut)}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.25rem 0 0;font-size:.8rem}.legend i{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:middle}.legend i.in{background:var(--acc)}.legend i.out{background:var(--ok)}
.live-dot{display:inline-block;width:.6rem;height:.6rem;border-radius:50%;background:var(--mut);margin-right:.3rem}.live-on .live-dot{background:var(--ok)}
@media (max-width:40rem){main{padding:.5rem}table.pin-last tr>:last-child{position:static}.langs{float:none}th,td{white-space:normal}form.panel{grid-template-columns:1fr}}
`;
