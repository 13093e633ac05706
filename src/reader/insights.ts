// Insights on the reader site (issue 29, item 3): a small same-origin script that sends the
// site's own events to its own origin (`~gitbook/insights`, answered by the same service as
// trackEventsInSiteById), and the "Was this page helpful?" control at the bottom of each page.
// Nothing goes to a third party; no cookie or storage is used (the server counts visitors with a
// daily-keyed hash: src/sites/insights-privacy.ts); a browser sending Do-Not-Track or Global
// Privacy Control sends nothing. With insights off (`insights.enabled: false`), there is neither
// script nor control; the feedback control also follows the customization's `feedback.enabled`.
// The endpoint itself: src/reader/insights-endpoint.ts.
import { createHash } from 'node:crypto';
import { escapeHtml as esc } from '../render/html.js';
import type { ReaderPage, ServedSite } from '../services/sites/reader.js';
import { insightsEnabled } from '../services/sites/insights.js';

// What the script does, in order: (1) a page_view for a page (its ids from the feedback control's
// data), or for a 404 (no page: page null), none on the search and ask pages; (2) a
// search_type_query once the reader stops typing in the header's search box (with the number of
// results the live list shows), or for the search results page; (3) a link_click for every link
// followed, with where it was (header, sidebar, content, footer, announcement); (4) feedback:
// a rating, then an optional comment. Events go by navigator.sendBeacon (they survive leaving the
// page), else fetch with keepalive.
const JS = `(function(){
var me=document.currentScript,ep=me&&me.getAttribute('data-endpoint');if(!ep)return;
if(navigator.doNotTrack==='1'||window.doNotTrack==='1'||navigator.globalPrivacyControl===true)return;
var box=null;
function loc(){var d=box?box.dataset:{};return{url:location.href.slice(0,2048),displayContext:'site',siteSection:d.section||null,siteSpace:d.siteSpace||null,siteShareKey:null,space:d.space||null,revision:d.revision||null,page:d.page||null}}
function send(type,extra){var e={type:type,session:{visitorId:'',sessionId:'',cookies:{},userAgent:navigator.userAgent,language:navigator.language||null,referrer:document.referrer||null},location:loc()};
for(var k in extra)e[k]=extra[k];var body=JSON.stringify({events:[e]});
try{if(navigator.sendBeacon&&navigator.sendBeacon(ep,new Blob([body],{type:'application/json'})))return}catch(x){}
if(window.fetch)fetch(ep,{method:'POST',headers:{'content-type':'application/json'},body:body,keepalive:true,credentials:'same-origin'}).catch(function(){})}
function start(){box=document.querySelector('[data-insights-page]');
var base=(document.documentElement.getAttribute('data-site')||'').replace(/\\/$/,''),rest=location.pathname.slice(base.length);
if(box)send('page_view',{});else if(rest==='/search'){var q=new URLSearchParams(location.search).get('q');if(q&&q.trim())send('search_type_query',{query:q.trim().slice(0,512),resultsCount:document.querySelectorAll('main ol.results>li').length})}
else if(rest!=='/ask')send('page_view',{});
var input=document.querySelector('header.site form[role=search] input[name=q]'),timer=0,last='';
function report(tries){var q=input.value.trim();if(q.length<2||q===last)return;var list=document.getElementById('search-results');
if((!list||list.hidden)&&tries<3){timer=setTimeout(function(){report(tries+1)},700);return}
last=q;send('search_type_query',{query:q.slice(0,512),resultsCount:list&&!list.hidden?list.querySelectorAll('li[role=option]:not([aria-disabled])').length:0})}
if(input)input.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(function(){report(0)},1000)});
document.addEventListener('click',function(ev){var a=ev.target.closest&&ev.target.closest('a[href]');if(!a||a.closest('.page-feedback'))return;var h=a.getAttribute('href')||'';if(!h||h.charAt(0)==='#')return;
var pos=a.closest('.banner')?'announcement':a.closest('header.site')||a.closest('nav.sections')?'header':a.closest('footer.site')?'footer':a.closest('nav.tree')?'sidebar':'content';
if(a.closest('header.site form[role=search]')){clearTimeout(timer);report(9)}
send('link_click',{link:{target:{kind:'url',url:a.href.slice(0,2048)},position:pos}})},true);
var fb=box&&box.querySelector('.page-feedback');if(!fb)return;fb.hidden=false;var rating=null;
fb.addEventListener('click',function(ev){var b=ev.target.closest&&ev.target.closest('button[data-rating]');if(!b||rating)return;rating=b.getAttribute('data-rating');
send('page_post_feedback',{feedback:{rating:rating}});fb.querySelectorAll('button[data-rating]').forEach(function(x){x.disabled=true;x.setAttribute('aria-pressed',x===b?'true':'false')});
var f=fb.querySelector('form');f.hidden=false;fb.querySelector('[role=status]').textContent='Thanks for your feedback!';f.querySelector('textarea').focus()});
fb.querySelector('form').addEventListener('submit',function(ev){ev.preventDefault();var t=this.querySelector('textarea'),c=t.value.trim().slice(0,512);if(!c||!rating)return;
send('page_post_feedback_comment',{feedback:{rating:rating,comment:c}});this.hidden=true;fb.querySelector('[role=status]').textContent='Thanks, your comment was sent.'})}
if(document.readyState==='loading')document.addEventListener('DOMContentLoaded',start);else start()})();
`;

const CSS = `.page-feedback{margin-top:2rem;padding:1rem;border:1px solid var(--line);border-radius:var(--radius);display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
.page-feedback[hidden],.page-feedback form[hidden]{display:none}.page-feedback h2{font-size:1rem;margin:0}.page-feedback button[aria-pressed=true]{border-color:var(--primary);color:var(--primary)}
.page-feedback form{flex-basis:100%;display:flex;gap:.5rem;align-items:flex-start}.page-feedback textarea{flex:1;min-height:3.5rem;font:inherit;padding:.4rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg)}
.page-feedback [role=status]{color:var(--muted);font-size:.9rem}
`;

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** The reader's insights script and styles, served with the site's other hashed assets. */
export const insightsScript = { name: `insights-${hash(JS)}.js`, body: JS, type: 'text/javascript; charset=utf-8' };
export const insightsStylesheet = { name: `insights-${hash(CSS)}.css`, body: CSS, type: 'text/css; charset=utf-8' };

/** Whether a site's reader pages carry the insights script (the site-level customization). */
export function readerInsightsOn(site: Pick<ServedSite, 'customization'>): boolean {
  return insightsEnabled(site.customization);
}

/** The tags the `<head>` of every reader page gets when insights are on. */
export function insightsHead(base: string, on: boolean): string {
  if (!on) return '';
  return `<link rel="stylesheet" href="${esc(base)}/~site/static/${insightsStylesheet.name}">
<script src="${esc(base)}/~site/static/${insightsScript.name}" data-endpoint="${esc(new URL(base).pathname.replace(/\/$/, ''))}/~gitbook/insights" defer></script>
`;
}

/**
 * The page's ids for its events, and the "Was this page helpful?" control (hidden until the script
 * shows it: without JavaScript it could not send anything).
 */
export function pageInsightsHtml(p: ReaderPage, on: boolean): string {
  if (!on) return '';
  const l = p.location;
  const attrs = [
    ['section', l.section?.id],
    ['site-space', l.siteSpace.id],
    ['space', l.space.id],
    ['revision', l.space.revision_id],
    ['page', l.page.node.id],
  ]
    .filter(([, v]) => v)
    .map(([k, v]) => ` data-${k}="${esc(String(v))}"`)
    .join('');
  const feedback =
    p.settings.feedback?.enabled === true
      ? `<section class="page-feedback" aria-labelledby="page-feedback-title" hidden><h2 id="page-feedback-title">Was this page helpful?</h2><button type="button" data-rating="good" aria-label="Yes, this page was helpful">👍 Yes</button><button type="button" data-rating="bad" aria-label="No, this page was not helpful">👎 No</button><p role="status"></p><form hidden><label class="skip" for="page-feedback-comment">Tell us more (optional)</label><textarea id="page-feedback-comment" maxlength="512" placeholder="Tell us more (optional)"></textarea><button type="submit">Send</button></form></section>`
      : '';
  return `<div data-insights-page${attrs}>${feedback}</div>`;
}
