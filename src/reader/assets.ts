// The site's static assets: one stylesheet and one small script, served under a content-hashed
// URL (`~site/static/<hash>.css|js`) with an immutable Cache-Control. Everything works without the
// script; it only adds the theme toggle's memory (localStorage) and applies the stored theme.
import { createHash } from 'node:crypto';
import { BLOCK_CSS } from '../render/html.js';
import { highlightCss } from '../render/highlight.js';
import { insightsScript, insightsStylesheet } from './insights.js';

const CSS = `:root{--primary:#346ddb;--bg:#fff;--fg:#1d1d1f;--muted:#6b6b70;--line:#e5e5e8;--soft:#f5f6f8;--radius:8px;--font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color-scheme:light}
:root[data-theme=dark]{--bg:#15161a;--fg:#e8e8ea;--muted:#a0a0a8;--line:#2c2d33;--soft:#1f2026;color-scheme:dark}
@media (prefers-color-scheme:dark){:root[data-theme=system]{--bg:#15161a;--fg:#e8e8ea;--muted:#a0a0a8;--line:#2c2d33;--soft:#1f2026;color-scheme:dark}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font-family:var(--font);line-height:1.6}
a{color:var(--link,var(--primary))}a:focus-visible,button:focus-visible,summary:focus-visible,input:focus-visible,select:focus-visible{outline:2px solid var(--primary);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:9}
.banner{padding:.5rem 1.5rem;background:var(--soft);border-bottom:1px solid var(--line)}.banner-warning{background:#fff4e0;color:#5c3b00}.banner-danger{background:#fde8e8;color:#6b0d0d}.banner-success{background:#e6f7ec;color:#0b4d24}
header.site{display:flex;flex-wrap:wrap;align-items:center;gap:1rem;padding:.75rem 1.5rem;border-bottom:1px solid var(--line)}
header.site .brand{font-weight:700;font-size:1.1rem;color:var(--fg);text-decoration:none;display:flex;gap:.5rem;align-items:center}header.site .brand img{height:28px}
header.site nav.links ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}
header.site form{margin-left:auto;display:flex;gap:.25rem;position:relative}
.search-results{position:absolute;top:calc(100% + .35rem);right:0;z-index:20;width:min(28rem,90vw);max-height:70vh;overflow:auto;margin:0;padding:.35rem;list-style:none;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:var(--radius);box-shadow:var(--shadow,0 4px 16px rgba(0,0,0,.12))}
.search-results[hidden]{display:none}.search-results li{border-radius:var(--radius)}.search-results a{display:block;padding:.45rem .6rem;color:var(--fg);text-decoration:none;border-radius:var(--radius)}
.search-results [aria-selected=true] a,.search-results a:hover{background:var(--soft)}.search-results [aria-selected=true] a{box-shadow:inset 3px 0 0 var(--primary)}
.search-results .t{display:block;font-weight:600}.search-results .s{display:block;font-size:.75rem;color:var(--muted)}.search-results .x{display:block;font-size:.85rem;color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.search-results .empty{padding:.45rem .6rem;color:var(--muted)}header.site input[type=search]{padding:.35rem .6rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg)}
button,.button{padding:.35rem .7rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--soft);color:var(--fg);cursor:pointer;font:inherit}
nav.sections{padding:0 1.5rem;border-bottom:1px solid var(--line)}nav.sections>ul{display:flex;flex-wrap:wrap;gap:1.25rem;list-style:none;margin:0;padding:0}nav.sections a{display:inline-block;padding:.6rem 0;color:var(--muted);text-decoration:none;border-bottom:2px solid transparent}nav.sections a[aria-current]{color:var(--fg);border-color:var(--primary)}nav.sections .group>span{color:var(--muted);font-size:.85rem;margin-right:.5rem}nav.sections .group ul{display:inline-flex;gap:1rem;list-style:none;padding:0;margin:0}
.layout{display:grid;grid-template-columns:17rem minmax(0,1fr) 14rem;gap:2rem;max-width:90rem;margin:0 auto;padding:0 1.5rem}
@media (max-width:64rem){.layout{grid-template-columns:1fr}aside.outline{display:none}}
nav.tree{padding:1.25rem 0;font-size:.95rem}nav.tree ul{list-style:none;margin:0;padding-left:.9rem}nav.tree>ul{padding:0}nav.tree a{display:block;padding:.15rem .4rem;color:var(--fg);text-decoration:none;border-radius:var(--radius)}nav.tree a[aria-current]{background:var(--soft);color:var(--primary);font-weight:600}nav.tree .group-title{display:block;margin-top:1rem;font-size:.8rem;font-weight:700;text-transform:uppercase;color:var(--muted)}nav.tree summary{list-style:none;cursor:pointer}nav.tree summary::-webkit-details-marker{display:none}
.variant{margin-bottom:1rem}.variant select,.variant summary{width:100%}.variant details ul{padding-left:0}
main{padding:1.5rem 0 3rem;min-width:0}main h1{margin:.25rem 0 .5rem;font-size:2rem;line-height:1.25}.description{color:var(--muted);font-size:1.1rem;margin-top:0}
nav.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem;margin:0;padding:0;font-size:.85rem;color:var(--muted)}nav.breadcrumbs li+li::before{content:"/";margin-right:.4rem}nav.breadcrumbs a{color:var(--muted)}
.body pre{background:var(--soft);padding:1rem;overflow:auto;border-radius:var(--radius);font-family:var(--mono)}.body code{font-family:var(--mono)}.body img{max-width:100%}.body table{border-collapse:collapse}.body td,.body th{border:1px solid var(--line);padding:.3rem .6rem}
.meta{display:flex;flex-wrap:wrap;gap:1rem;margin-top:2rem;font-size:.85rem;color:var(--muted)}
nav.pagination{display:flex;justify-content:space-between;gap:1rem;margin-top:2rem}nav.pagination a{flex:1;border:1px solid var(--line);border-radius:var(--radius);padding:.75rem 1rem;text-decoration:none}nav.pagination .next{text-align:right}nav.pagination small{display:block;color:var(--muted)}
aside.outline{padding:1.5rem 0;font-size:.85rem;position:sticky;top:0;align-self:start}aside.outline ul{list-style:none;padding:0;margin:0}aside.outline .l3{padding-left:.8rem}aside.outline a{color:var(--muted);text-decoration:none}
footer.site{border-top:1px solid var(--line);padding:1.5rem;color:var(--muted);font-size:.9rem;display:flex;flex-wrap:wrap;gap:2rem;align-items:flex-start}footer.site ul{list-style:none;padding:0;margin:.25rem 0}footer.site a{color:var(--muted)}footer.site a:hover{color:var(--fg)}
.footer-logo{display:block;line-height:0}.footer-logo img{height:28px}footer.site .legal{margin-left:auto;text-align:right}footer.site .legal p{margin:.25rem 0}footer.site ul.social{display:flex;flex-wrap:wrap;gap:.75rem;justify-content:flex-end}header.site ul.social{display:flex;gap:.75rem;list-style:none;margin:0;padding:0;font-size:.9rem}
.cover{margin:1.25rem 0 .5rem;border-radius:var(--radius);overflow:hidden;background:var(--soft)}.cover img{display:block;width:100%;height:15rem;object-fit:cover}.cover-hero img{height:auto;max-height:24rem;object-fit:contain}
.cover-dark{display:none!important}:root[data-theme=dark] .cover-dark{display:block!important}:root[data-theme=dark] .cover-light{display:none!important}
@media (prefers-color-scheme:dark){:root[data-theme=system] .cover-dark{display:block!important}:root[data-theme=system] .cover-light{display:none!important}}
.results{list-style:none;padding:0}.results li{margin:1rem 0}.results p{margin:.2rem 0;color:var(--muted)}.results .where{display:block;font-size:.8rem;color:var(--muted)}
nav.pagination a{box-shadow:var(--shadow,none)}
.logo-dark{display:none}:root[data-theme=dark] .logo-dark{display:inline}:root[data-theme=dark] .logo-light{display:none}
@media (prefers-color-scheme:dark){:root[data-theme=system] .logo-dark{display:inline}:root[data-theme=system] .logo-light{display:none}}
.corners-straight{--radius:0}.corners-circular{--radius:16px}
.ask{display:flex;gap:.25rem}.ask input{padding:.35rem .6rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg);width:12rem}
.ask-panel{max-width:60rem;margin:1rem auto;padding:1rem 1.5rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--soft)}.ask-panel h2{margin:0 0 .5rem;font-size:1.1rem}
.ask-answer blockquote,.ask-panel blockquote{border-left:3px solid var(--primary);margin:.5rem 0;padding-left:1rem}.ask-panel[hidden]{display:none}
`;

// Live search under the header's search box (a combobox over a listbox, WAI-ARIA 1.2): results of
// `~site/search` as the reader types; arrows move, Enter opens, Escape closes. Without JavaScript,
// or on Enter with no option chosen, the form goes to the results page as before. Text goes into
// the DOM with textContent only.
const SEARCH_JS = `(function(){document.addEventListener('DOMContentLoaded',function(){
var form=document.querySelector('header.site form[role=search]'),input=form&&form.querySelector('input[name=q]');if(!form||!input||!window.fetch)return;
var endpoint=form.getAttribute('action').replace(/\\/search$/,'/~site/search');
var list=document.createElement('ul');list.id='search-results';list.className='search-results';list.setAttribute('role','listbox');list.setAttribute('aria-label','Search results');list.hidden=true;form.appendChild(list);
var status=document.createElement('p');status.className='skip';status.setAttribute('role','status');form.appendChild(status);
input.setAttribute('role','combobox');input.setAttribute('aria-autocomplete','list');input.setAttribute('aria-controls',list.id);input.setAttribute('aria-expanded','false');input.setAttribute('autocomplete','off');
var options=[],active=-1,timer=0,seq=0,ctrl=null;
function open(v){list.hidden=!v;input.setAttribute('aria-expanded',v?'true':'false');if(!v){select(-1);status.textContent=''}}
function select(i){active=i;options.forEach(function(o,j){o.setAttribute('aria-selected',j===i?'true':'false')});
if(i<0)input.removeAttribute('aria-activedescendant');else{input.setAttribute('aria-activedescendant',options[i].id);options[i].scrollIntoView({block:'nearest'})}}
function span(c,t){var e=document.createElement('span');e.className=c;e.textContent=t;return e}
function show(items,q){list.textContent='';options=[];active=-1;
if(!items.length){var none=document.createElement('li');none.className='empty';none.setAttribute('role','option');none.setAttribute('aria-disabled','true');none.id='search-none';none.textContent='No results for \\u201c'+q+'\\u201d';list.appendChild(none)}
items.slice(0,10).forEach(function(h,i){var li=document.createElement('li');li.id='search-option-'+i;li.setAttribute('role','option');li.setAttribute('aria-selected','false');
var a=document.createElement('a');a.href=h.url;a.tabIndex=-1;a.appendChild(span('t',h.title));if(h.section)a.appendChild(span('s',h.section));
var x=(h.snippet||'').replace(/\\s+/g,' ').trim();if(x)a.appendChild(span('x',x.length>160?x.slice(0,160)+'\\u2026':x));li.appendChild(a);list.appendChild(li);options.push(li)});
open(true);input.removeAttribute('aria-activedescendant');status.textContent=options.length===1?'1 result':options.length+' results'}
function query(){var q=input.value.trim(),n=++seq;if(ctrl)ctrl.abort();if(q.length<2){open(false);return}
ctrl=window.AbortController?new AbortController():null;
fetch(endpoint+'?q='+encodeURIComponent(q),{headers:{accept:'application/json'},credentials:'same-origin',signal:ctrl?ctrl.signal:undefined})
.then(function(r){return r.ok?r.json():{items:[]}}).then(function(b){if(n===seq&&input.value.trim()===q)show(b.items||[],q)}).catch(function(){})}
input.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(query,120)});
input.addEventListener('keydown',function(e){var k=e.key;
if(k==='ArrowDown'||k==='ArrowUp'){if(list.hidden){if(options.length)open(true);else return}if(!options.length)return;e.preventDefault();
var n=options.length;select(k==='ArrowDown'?(active+1)%n:(active<=0?n-1:active-1))}
else if(k==='Enter'&&!list.hidden&&active>=0){e.preventDefault();location.href=options[active].querySelector('a').href}
else if(k==='Escape'&&!list.hidden){e.preventDefault();open(false)}});
form.addEventListener('focusout',function(e){if(!e.relatedTarget||!form.contains(e.relatedTarget))setTimeout(function(){if(!form.contains(document.activeElement))open(false)},0)});
input.addEventListener('focus',function(){if(options.length&&input.value.trim().length>=2)open(true)});
list.addEventListener('mousedown',function(e){e.preventDefault()});
})})();
`;

// The Ask box: the answer (HTML the server escaped, links to the pages it cites) shows in a panel
// under the header as it grows: "~site/ask/stream" (Server-Sent Events read with fetch and a stream
// reader: `answer` events hold the answer so far, `done` the whole answer and its sources). If the
// stream cannot be read or breaks before its end, the question goes to the JSON endpoint
// ("~site/ask") instead. A new question cancels the one still streaming. The panel is aria-busy
// until the answer is complete, so a screen reader reads it once. A page opened with
// "?ask=<question>" (GitBook's links) opens the panel with that question. Without JavaScript the
// form opens the Ask page.
const ASK_JS = `(function(){document.addEventListener('DOMContentLoaded',function(){
var form=document.querySelector('header.site form.ask'),input=form&&form.querySelector('input[name=q]');if(!form||!input||!window.fetch)return;
var endpoint=form.getAttribute('action').replace(/\\/ask$/,'/~site/ask');var panel=null,seq=0,ctrl=null;
function end(b,html,failed){panel.removeAttribute('aria-busy');if(failed)b.textContent='The question could not be answered.';else b.innerHTML=html||'';b.dataset.done='1'}
function whole(q,n,b){return fetch(endpoint+'?q='+encodeURIComponent(q),{headers:{accept:'application/json'},credentials:'same-origin'})
.then(function(r){return r.ok?r.json():Promise.reject(r.status)}).then(function(a){if(n===seq)end(b,a.html)})}
function streamed(q,n,b){if(!window.TextDecoder||!window.AbortController)return Promise.reject('unsupported');ctrl=new AbortController();
return fetch(endpoint+'/stream?q='+encodeURIComponent(q),{headers:{accept:'text/event-stream'},credentials:'same-origin',signal:ctrl.signal}).then(function(r){
if(!r.ok||!r.body||!r.body.getReader||!/^text\\/event-stream/.test(r.headers.get('content-type')||''))return Promise.reject(r.status);
var reader=r.body.getReader(),dec=new TextDecoder(),buf='',over=false;
function event(block){var type='message',data='';block.split('\\n').forEach(function(l){if(l.indexOf('event:')===0)type=l.slice(6).trim();else if(l.indexOf('data:')===0)data+=l.slice(5).replace(/^ /,'')});
if(!data||n!==seq)return;var a=JSON.parse(data);
if(type==='answer'){b.innerHTML=a.html||'';b.dataset.partial='1'}else if(type==='done'){over=true;end(b,a.html)}else if(type==='error'){over=true;end(b,'',true)}}
function pump(){return reader.read().then(function(x){if(n!==seq){reader.cancel().catch(function(){});return}
if(x.value)buf+=dec.decode(x.value,{stream:true});for(var i;(i=buf.indexOf('\\n\\n'))>=0;){event(buf.slice(0,i));buf=buf.slice(i+2)}
if(over)return;if(x.done)return Promise.reject('cut');return pump()})}
return pump()})}
function ask(q){q=q.trim();if(!q)return;var n=++seq;if(ctrl){ctrl.abort();ctrl=null}
if(!panel){panel=document.createElement('section');panel.className='ask-panel';panel.setAttribute('aria-live','polite');panel.setAttribute('aria-label','Answer');var h=document.querySelector('header.site');h.parentNode.insertBefore(panel,h.nextSibling)}
panel.hidden=false;panel.setAttribute('aria-busy','true');panel.textContent='';var t=document.createElement('h2');t.textContent=q;panel.appendChild(t);var b=document.createElement('div');b.className='answer';b.setAttribute('role','status');b.textContent='Looking for an answer\\u2026';panel.appendChild(b);
streamed(q,n,b).catch(function(){if(n===seq&&!b.dataset.done)return whole(q,n,b)}).catch(function(){if(n===seq)end(b,'',true)})}
form.addEventListener('submit',function(e){e.preventDefault();ask(input.value)});
var given=new URLSearchParams(location.search).get('ask');if(given){input.value=given.slice(0,512);ask(input.value)}
})})();
`;

// Code blocks: a copy button on each (added here, so the page without JavaScript and the PDF have
// none). It copies the code's text as written: line numbers are CSS counters, not text.
const COPY_JS = `(function(){document.addEventListener('DOMContentLoaded',function(){
document.querySelectorAll('.body .code-block').forEach(function(block){var code=block.querySelector('pre code');if(!code)return;
var b=document.createElement('button');b.type='button';b.className='code-copy';b.textContent='Copy';b.setAttribute('aria-label','Copy code');
b.addEventListener('click',function(){var text=code.textContent;function done(ok){b.textContent=ok?'Copied':'Copy failed';setTimeout(function(){b.textContent='Copy'},1500)}
if(navigator.clipboard&&navigator.clipboard.writeText)navigator.clipboard.writeText(text).then(function(){done(true)},function(){done(false)});
else{var t=document.createElement('textarea');t.value=text;t.setAttribute('readonly','');t.className='skip';document.body.appendChild(t);t.select();var ok=false;try{ok=document.execCommand('copy')}catch(e){}t.remove();done(ok)}});
block.appendChild(b)})})})();
`;

const JS =
  `(function(){var r=document.documentElement,k='dp-theme:'+(r.dataset.site||'');try{var s=localStorage.getItem(k);if(s&&r.dataset.toggle==='1')r.dataset.theme=s}catch(e){}
document.addEventListener('click',function(e){var b=e.target.closest&&e.target.closest('[data-theme-toggle]');if(!b)return;e.preventDefault();var dark=r.dataset.theme==='dark'||(r.dataset.theme==='system'&&matchMedia('(prefers-color-scheme: dark)').matches);var n=dark?'light':'dark';r.dataset.theme=n;try{localStorage.setItem(k,n)}catch(e){}});
document.addEventListener('DOMContentLoaded',function(){var b=document.querySelector('[data-theme-toggle]');if(b)b.hidden=false});
document.addEventListener('change',function(e){var t=e.target;if(t&&t.matches&&t.matches('select[data-navigate]')&&t.value)location.href=t.value});})();

` +
  SEARCH_JS +
  ASK_JS +
  COPY_JS;

// GitBook's blocks (BLOCK_CSS, shared with the PDF renderer) are drawn in fixed light colors; on
// the site they take the theme's colors instead, so they read in dark mode and follow the tint and
// the semantic colors of the customization (variables from the per-site stylesheet, layout-theme.ts).
const BLOCK_THEME = `.body aside.hint{border:0;border-left:4px solid var(--hint,var(--info,#346ddb));background:var(--hint-bg,var(--soft));color:var(--fg);padding:.6rem 1rem;border-radius:var(--radius);margin:1rem 0}
.body aside.hint>:first-child{margin-top:0}.body aside.hint>:last-child{margin-bottom:0}
.body aside.hint-info{--hint:var(--info);--hint-bg:var(--info-bg)}.body aside.hint-success{--hint:var(--success);--hint-bg:var(--success-bg)}
.body aside.hint-warning{--hint:var(--warning);--hint-bg:var(--warning-bg)}.body aside.hint-danger{--hint:var(--danger);--hint-bg:var(--danger-bg)}
.body .tabs,.body details.expandable,.body .openapi-operation,.body .embed,.body .content-ref,.body .reusable-content,.body .card{border-color:var(--line);border-radius:var(--radius)}
.body .card{background:var(--bg);box-shadow:var(--shadow,none)}.body .card-text,.body figcaption,.body .update-date{color:var(--muted)}
.body .tab-label{color:var(--muted)}.body .tab-radio:checked+.tab-label{color:var(--link,var(--primary));border-bottom-color:var(--primary)}.body .tab-radio:focus-visible+.tab-label{outline-color:var(--primary)}
.body ol.stepper>li.step::before{background:var(--primary);color:var(--on-primary,#fff)}
.body figure.code-block figcaption.code-title{background:var(--soft);color:var(--fg);border-bottom:1px solid var(--line);border-radius:var(--radius) var(--radius) 0 0}
.body figure.code-block figcaption.code-title+pre{margin-top:0;border-top-left-radius:0;border-top-right-radius:0}
.body .update{border-left-color:var(--line)}.body blockquote{border-left:3px solid var(--line);margin-left:0;padding-left:1rem;color:var(--muted)}
.body :not(pre)>code{background:var(--soft);border:1px solid var(--line);padding:0 .25em;border-radius:4px;font-size:.9em}
.body th{background:var(--soft)}.body .image-placeholder{border:1px dashed var(--line);color:var(--muted);padding:0 .4em}
.body .openapi-operation .method{color:var(--link,var(--primary))}
.body aside.hint{display:flex;gap:.6rem}.body aside.hint .hint-icon{color:var(--hint);margin-top:.3rem}.body aside.hint .hint-body>:first-child{margin-top:0}.body aside.hint .hint-body>:last-child{margin-bottom:0}
.body .code-block{position:relative;margin:1rem 0}.body .code-block pre.code{margin:0}.body figure.code-block figcaption.code-title{text-align:left;font-family:var(--mono);font-size:.85rem;padding:.35rem 1rem}
.body .code-block.line-numbers .line::before{color:var(--muted)}
.body .code-copy{position:absolute;top:.35rem;right:.35rem;padding:.1rem .5rem;font-size:.75rem;opacity:.75}.body .code-copy:hover,.body .code-copy:focus-visible{opacity:1}
@media (min-width:64rem){.body .code-block.full-width{margin-right:-16rem}}
nav.tree a svg.icon,main h1 svg.icon{margin-right:.4em;color:var(--muted)}main h1 svg.icon{color:var(--primary)}
${highlightCss().dark(':root[data-theme=dark] .body ')}
@media (prefers-color-scheme:dark){${highlightCss().dark(':root[data-theme=system] .body ')}}
@media print{.body .code-copy{display:none}}
`;

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

export interface Asset {
  name: string;
  body: string;
  type: string;
}

// The layout's rules, GitBook's blocks as every renderer of the platform styles them, then the
// site's theme laid over those blocks.
const SITE_CSS = `${CSS}\n${BLOCK_CSS}\n${BLOCK_THEME}`;
export const stylesheet: Asset = { name: `${hash(SITE_CSS)}.css`, body: SITE_CSS, type: 'text/css; charset=utf-8' };
export const script: Asset = { name: `${hash(JS)}.js`, body: JS, type: 'text/javascript; charset=utf-8' };

export function assetByName(name: string): Asset | undefined {
  return [stylesheet, script, insightsScript, insightsStylesheet].find((a) => a.name === name);
}

/** Changes whenever an asset changes: part of every page's ETag. */
export const assetsVersion = hash(stylesheet.name + script.name + insightsScript.name + insightsStylesheet.name);
