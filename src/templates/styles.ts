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
@media (max-width:30rem){dl.terms{grid-template-columns:1fr}dl.terms dd{margin-bottom:.5rem}h1{font-size:1.35rem}}
`;

// FNV-1a, enough to tell versions of one file apart (not a security boundary).
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

export const PAGES_CSS_PATH = `/styles/pages-${fnv1a(PAGES_CSS)}.css`;
