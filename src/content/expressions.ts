/**
 * Evaluate variable expressions in page markdown: `{{ space.vars.name }}` and `{{ page.vars.name }}`
 * are replaced by the revision's or the page's variable; unknown expressions are left as written.
 */
export function evaluateExpressions(markdown: string, vars: { space: Record<string, string>; page: Record<string, string> }): string {
  return markdown.replace(/\{\{\s*(space|page)\.vars\.([A-Za-z_][\w-]*)\s*\}\}/g, (whole, scope: 'space' | 'page', name: string) => {
    const value = vars[scope][name];
    return value === undefined ? whole : value;
  });
}
