// The site's static assets: one stylesheet and one small script, served under a content-hashed
// URL (`~site/static/<hash>.css|js`) with an immutable Cache-Control. Everything works without the
// script; it only adds the theme toggle's memory (localStorage) and applies the stored theme.
import { createHash } from 'node:crypto';
import { BLOCK_CSS } from '../render/html.js';

const CSS = `:root{--primary:#346ddb;--bg:#fff;--fg:#1d1d1f;--muted:#6b6b70;--line:#e5e5e8;--soft:#f5f6f8;--radius:8px;--font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color-scheme:light}
:root[data-theme=dark]{--bg:#15161a;--fg:#e8e8ea;--muted:#a0a0a8;--line:#2c2d33;--soft:#1f2026;color-scheme:dark}
@media (prefers-color-scheme:dark){:root[data-theme=system]{--bg:#15161a;--fg:#e8e8ea;--muted:#a0a0a8;--line:#2c2d33;--soft:#1f2026;color-scheme:dark}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font-family:var(--font);line-height:1.6}
a{color:var(--primary)}a:focus-visible,button:focus-visible,summary:focus-visible,input:focus-visible,select:focus-visible{outline:2px solid var(--primary);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:9}
.banner{padding:.5rem 1.5rem;background:var(--soft);border-bottom:1px solid var(--line)}.banner-warning{background:#fff4e0;color:#5c3b00}.banner-danger{background:#fde8e8;color:#6b0d0d}.banner-success{background:#e6f7ec;color:#0b4d24}
header.site{display:flex;flex-wrap:wrap;align-items:center;gap:1rem;padding:.75rem 1.5rem;border-bottom:1px solid var(--line)}
header.site .brand{font-weight:700;font-size:1.1rem;color:var(--fg);text-decoration:none;display:flex;gap:.5rem;align-items:center}header.site .brand img{height:28px}
header.site nav.links ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}
header.site form{margin-left:auto;display:flex;gap:.25rem}header.site input[type=search]{padding:.35rem .6rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg)}
button,.button{padding:.35rem .7rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--soft);color:var(--fg);cursor:pointer;font:inherit}
nav.sections{padding:0 1.5rem;border-bottom:1px solid var(--line)}nav.sections>ul{display:flex;flex-wrap:wrap;gap:1.25rem;list-style:none;margin:0;padding:0}nav.sections a{display:inline-block;padding:.6rem 0;color:var(--muted);text-decoration:none;border-bottom:2px solid transparent}nav.sections a[aria-current]{color:var(--fg);border-color:var(--primary)}nav.sections .group>span{color:var(--muted);font-size:.85rem;margin-right:.5rem}nav.sections .group ul{display:inline-flex;gap:1rem;list-style:none;padding:0;margin:0}
.layout{display:grid;grid-template-columns:17rem minmax(0,1fr) 14rem;gap:2rem;max-width:90rem;margin:0 auto;padding:0 1.5rem}
@media (max-width:64rem){.layout{grid-template-columns:1fr}aside.outline{display:none}}
nav.tree{padding:1.25rem 0;font-size:.95rem}nav.tree ul{list-style:none;margin:0;padding-left:.9rem}nav.tree>ul{padding:0}nav.tree a{display:block;padding:.15rem .4rem;color:var(--fg);text-decoration:none;border-radius:var(--radius)}nav.tree a[aria-current]{background:var(--soft);color:var(--primary);font-weight:600}nav.tree .group-title{display:block;margin-top:1rem;font-size:.8rem;font-weight:700;text-transform:uppercase;color:var(--muted)}nav.tree summary{list-style:none;cursor:pointer}nav.tree summary::-webkit-details-marker{display:none}
.variant{margin-bottom:1rem}.variant select,.variant summary{width:100%}.variant details ul{padding-left:0}
main{padding:1.5rem 0 3rem;min-width:0}main h1{margin:.25rem 0 .5rem;font-size:2rem;line-height:1.25}.description{color:var(--muted);font-size:1.1rem;margin-top:0}
nav.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem;margin:0;padding:0;font-size:.85rem;color:var(--muted)}nav.breadcrumbs li+li::before{content:"/";margin-right:.4rem}nav.breadcrumbs a{color:var(--muted)}
.body pre{background:var(--soft);padding:1rem;overflow:auto;border-radius:var(--radius);font-family:var(--mono)}.body code{font-family:var(--mono)}.body img{max-width:100%}.body table{border-collapse:collapse}.body td,.body th{border:1px solid var(--line);padding:.3rem .6rem}.body aside.hint{border-left:4px solid var(--primary);background:var(--soft);padding:.5rem 1rem;border-radius:var(--radius)}
.meta{display:flex;flex-wrap:wrap;gap:1rem;margin-top:2rem;font-size:.85rem;color:var(--muted)}
nav.pagination{display:flex;justify-content:space-between;gap:1rem;margin-top:2rem}nav.pagination a{flex:1;border:1px solid var(--line);border-radius:var(--radius);padding:.75rem 1rem;text-decoration:none}nav.pagination .next{text-align:right}nav.pagination small{display:block;color:var(--muted)}
aside.outline{padding:1.5rem 0;font-size:.85rem;position:sticky;top:0;align-self:start}aside.outline ul{list-style:none;padding:0;margin:0}aside.outline .l3{padding-left:.8rem}aside.outline a{color:var(--muted);text-decoration:none}
footer.site{border-top:1px solid var(--line);padding:1.5rem;color:var(--muted);font-size:.9rem;display:flex;flex-wrap:wrap;gap:2rem}footer.site ul{list-style:none;padding:0;margin:.25rem 0}
.results{list-style:none;padding:0}.results li{margin:1rem 0}.results p{margin:.2rem 0;color:var(--muted)}
.logo-dark{display:none}:root[data-theme=dark] .logo-dark{display:inline}:root[data-theme=dark] .logo-light{display:none}
@media (prefers-color-scheme:dark){:root[data-theme=system] .logo-dark{display:inline}:root[data-theme=system] .logo-light{display:none}}
.corners-straight{--radius:0}.corners-circular{--radius:16px}
`;

const JS = `(function(){var r=document.documentElement,k='dp-theme:'+(r.dataset.site||'');try{var s=localStorage.getItem(k);if(s&&r.dataset.toggle==='1')r.dataset.theme=s}catch(e){}
document.addEventListener('click',function(e){var b=e.target.closest&&e.target.closest('[data-theme-toggle]');if(!b)return;e.preventDefault();var dark=r.dataset.theme==='dark'||(r.dataset.theme==='system'&&matchMedia('(prefers-color-scheme: dark)').matches);var n=dark?'light':'dark';r.dataset.theme=n;try{localStorage.setItem(k,n)}catch(e){}});
document.addEventListener('DOMContentLoaded',function(){var b=document.querySelector('[data-theme-toggle]');if(b)b.hidden=false});
document.addEventListener('change',function(e){var t=e.target;if(t&&t.matches&&t.matches('select[data-navigate]')&&t.value)location.href=t.value});})();
`;

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

export interface Asset {
  name: string;
  body: string;
  type: string;
}

// The layout's rules, then GitBook's blocks as every renderer of the platform styles them.
const SITE_CSS = `${CSS}\n${BLOCK_CSS}`;
export const stylesheet: Asset = { name: `${hash(SITE_CSS)}.css`, body: SITE_CSS, type: 'text/css; charset=utf-8' };
export const script: Asset = { name: `${hash(JS)}.js`, body: JS, type: 'text/javascript; charset=utf-8' };

export function assetByName(name: string): Asset | undefined {
  return [stylesheet, script].find((a) => a.name === name);
}

/** Changes whenever an asset changes: part of every page's ETag. */
export const assetsVersion = hash(stylesheet.name + script.name);
