// The pages' one stylesheet, served by the Worker from this string under a name that carries its
// hash, so it can be cached for a year and a change is a new URL. System fonts: nothing from another host.
export const PAGES_CSS = `*,*::before,*::after{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1a1a1a;background:#fff;
-webkit-text-size-adjust:100%}
body{margin:0}
.wrap{max-width:46rem;margin:0 auto;padding:0 1rem}
header.site{background:#0b3d59;color:#fff}
header.site .wrap{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;padding-top:.75rem;padding-bottom:.75rem}
header.site a{color:#fff}
header.site p{margin:0;font-weight:600}
main.wrap{padding-top:1rem;padding-bottom:2.5rem}
footer.site{border-top:1px solid #ccc;color:#444;font-size:.9rem;padding:1rem 0 2rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0}
h2{font-size:1.25rem;margin:2rem 0 .5rem}
h3{font-size:1.05rem;margin:1.25rem 0 .25rem}
a{color:#0a4f86}
a:hover{color:#06365d}
:focus-visible{outline:3px solid #c25e00;outline-offset:2px}
.lead{font-size:1.1rem}
.muted{color:#4a4a4a}
.card{border:1px solid #c8c8c8;border-radius:6px;padding:1rem;margin:1rem 0;background:#fafafa}
.card h2{margin-top:0}
.notice{border-left:5px solid #0a4f86;background:#eef5fb;padding:.75rem 1rem;margin:1rem 0}
.warning{border-left:5px solid #9a5b00;background:#fff6e5;padding:.75rem 1rem;margin:1rem 0}
.error-summary{border-left:5px solid #b00020;background:#fdecee;padding:.75rem 1rem;margin:1rem 0}
.error-summary{scroll-margin-top:1rem}
.error-summary:focus{outline:3px solid #b00020;outline-offset:2px}
details.submission{border:1px solid #c8c8c8;border-radius:6px;padding:.5rem 1rem;margin:0 0 1rem;background:#fafafa}
details.submission summary{cursor:pointer;font-weight:600;padding:.25rem 0}
dl.terms{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.35rem 1rem;margin:.5rem 0}
dl.terms dt{font-weight:600}
dl.terms dd{margin:0;overflow-wrap:anywhere}
dl.terms dd p{margin:0}
ul.scope{padding-left:1.25rem;margin:.25rem 0}
ul.scope li{overflow-wrap:anywhere}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em;overflow-wrap:anywhere}
form .field{margin:1rem 0}
label{display:block;font-weight:600;margin-bottom:.25rem}
.hint{display:block;color:#4a4a4a;font-size:.9rem;margin:.1rem 0 .35rem}
.message{display:block;color:#b00020;font-weight:600;margin:.25rem 0}
input[type=text],input[type=email],textarea{width:100%;font:inherit;padding:.5rem;border:2px solid #5c5c5c;border-radius:4px;
background:#fff;color:#1a1a1a}
input[type=file]{font:inherit;max-width:100%}
.check label{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
.check input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;flex:none}
textarea{min-height:8rem;resize:vertical}
input[aria-invalid=true],textarea[aria-invalid=true]{border-color:#b00020}
input[type=file][aria-invalid=true]{outline:2px solid #b00020;outline-offset:2px}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:4px;background:#0a4f86;color:#fff;cursor:pointer}
button:hover{background:#06365d}
ol.conversation{list-style:none;padding:0}
ol.conversation li{border:1px solid #c8c8c8;border-radius:6px;padding:.75rem 1rem;margin:.75rem 0}
ol.conversation li.organization{background:#eef5fb}
.who{font-weight:600;margin:0 0 .25rem}
.body{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.badge{display:inline-block;border:1px solid #5c5c5c;border-radius:3px;padding:0 .4rem;font-size:.9rem;font-weight:600}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ddd;vertical-align:top;overflow-wrap:anywhere}
th.nowrap,td.nowrap{white-space:nowrap}
h4{font-size:1rem;margin:1rem 0 .25rem}
.table{overflow-x:auto;margin:.5rem 0}
.table th,.table td{min-width:7rem}
article.op,article.schema{border-top:1px solid #ddd;margin-top:1.5rem;padding-top:.5rem;content-visibility:auto;
contain-intrinsic-size:auto 30rem}
article.op h3,article.schema h3{overflow-wrap:anywhere}
.method{display:inline-block;min-width:4.5em;text-align:center;border-radius:3px;padding:0 .3rem;
font:700 .8rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#fff;background:#4a4a4a;vertical-align:.1em}
.method.get{background:#0a5c36}.method.post{background:#0a4f86}.method.patch{background:#7a4300}.method.delete{background:#a00020}
ul.members{list-style:none;padding-left:.9rem;border-left:2px solid #ddd;margin:.25rem 0}
ul.members li{margin:.3rem 0}
.facts{color:#4a4a4a;font-size:.9rem}
.desc{display:block}
p.media,p.headers{margin:.25rem 0;font-size:.95rem}
dl.answers dt{font-weight:700;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin-top:.5rem}
dl.answers dd{margin:0 0 .5rem}
dl.params dt{margin-top:.5rem;overflow-wrap:anywhere}
dl.params dd{margin:0 0 0 1rem}
ul.toc,ul.toc ul{list-style:none;padding-left:0}
ul.toc>li{margin:.5rem 0}
ul.toc ul li{margin:.15rem 0 .15rem 1rem}
ul.tags{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0}
button.secondary{background:#fff;color:#0a4f86;border:2px solid #0a4f86;padding:.45rem 1rem}
button.secondary:hover{background:#eef5fb;color:#06365d}
ul.passkeys{list-style:none;padding:0;margin:.5rem 0}
ul.passkeys li{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem;
border-bottom:1px solid #ddd;padding:.5rem 0}
ul.passkeys form{margin:0}
[hidden]{display:none!important}
body.wide .wrap{max-width:76rem}
nav.console{background:#e8eef2;color:#1a1a1a;border-bottom:1px solid #c8c8c8}
nav.console .wrap{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.25rem 1rem;padding-top:.25rem;
padding-bottom:.25rem}
nav.console ul{display:flex;flex-wrap:wrap;gap:0 1rem;list-style:none;margin:0;padding:0}
nav.console a{color:#0a3d66;display:inline-block;padding:.35rem 0;font-weight:600}
nav.console a[aria-current=page]{text-decoration-thickness:3px;text-underline-offset:.3em}
nav.console form{display:flex;align-items:center;gap:.5rem;margin:0;font-size:.95rem}
button.link{background:none;border:0;padding:.35rem 0;color:#0a3d66;text-decoration:underline;font-weight:600}
button.link:hover{background:none;color:#06365d}
select{font:inherit;padding:.45rem;border:2px solid #5c5c5c;border-radius:4px;background:#fff;color:#1a1a1a;max-width:100%}
input[type=search],input[type=number],input[type=datetime-local],input[type=url]{font:inherit;padding:.45rem;border:2px solid #5c5c5c;
border-radius:4px;background:#fff;color:#1a1a1a;max-width:100%}
ul.tabs{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;padding:0;margin:1rem 0;border-bottom:2px solid #c8c8c8}
ul.tabs a{display:block;padding:.4rem .75rem;border:1px solid #c8c8c8;border-bottom:0;border-radius:4px 4px 0 0;background:#f4f4f4;
text-decoration:none;color:#0a3d66}
ul.tabs a[aria-current=page]{background:#fff;border-color:#0a4f86;border-width:2px;font-weight:700;margin-bottom:-2px}
.count{font-weight:400;color:#3d3d3d}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin:.75rem 0}
.toolbar .field{margin:0}
.state{display:inline-block;border-radius:3px;padding:0 .4rem;font-size:.9rem;font-weight:600;border:1px solid #5c5c5c;white-space:nowrap}
.state.overdue{background:#fdecee;border-color:#b00020;color:#7a0016}
.state.soon{background:#fff6e5;border-color:#9a5b00;color:#5c3700}
.state.met{background:#eaf5ee;border-color:#0a5c36;color:#0a4429}
.columns{display:grid;gap:1.5rem}
@media (min-width:60rem){.columns{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}}
pre.received{white-space:pre-wrap;overflow-wrap:anywhere;background:#fafafa;border:1px solid #c8c8c8;border-radius:6px;padding:.75rem;
margin:.5rem 0;font:inherit}
ol.conversation li.internal{background:#fff6e5;border-style:dashed}
ol.timeline{padding-left:1.25rem}
ol.timeline li{margin:.25rem 0}
fieldset{border:1px solid #c8c8c8;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.radio label{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.25rem 0}
.radio input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;flex:none}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}
a.button{display:inline-block;font-weight:600;padding:.6rem 1.2rem;border-radius:4px;background:#0a4f86;color:#fff;text-decoration:none}
svg.chart{max-width:100%;height:auto}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.inbox caption{text-align:left;padding:.25rem 0}
table.inbox tr.unread td{font-weight:600}
@media (min-width:40rem){table.inbox th,table.inbox td{overflow-wrap:normal}}
@media (max-width:40rem){table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack tr{display:block;border-bottom:1px solid #c8c8c8;padding:.5rem 0}
table.stack td{display:block;border:0;padding:.1rem 0}
table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}
@media (max-width:30rem){dl.terms{grid-template-columns:1fr}dl.terms dd{margin-bottom:.5rem}h1{font-size:1.35rem}}
ul.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.25rem 0 1rem}
ul.legend svg{vertical-align:-2px}
caption{text-align:left;font-weight:600;padding:.25rem 0}
pre.json{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
.policy-body{overflow-wrap:anywhere}
.policy-body pre{white-space:pre-wrap;background:#fafafa;border:1px solid #c8c8c8;border-radius:6px;padding:.75rem}
del.line,ins.line{display:block;text-decoration:none;white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,
Menlo,Consolas,monospace;font-size:.9rem;padding:0 .5rem}
del.line{background:#fdecee}ins.line{background:#eaf5ee}span.line{display:block;white-space:pre-wrap;overflow-wrap:anywhere;
font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem;padding:0 .5rem}
.diff{border:1px solid #c8c8c8;border-radius:6px;margin:.5rem 0}
`;

// FNV-1a, enough to tell versions of one file apart (not a security boundary).
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

export const PAGES_CSS_PATH = `/styles/pages-${fnv1a(PAGES_CSS)}.css`;
