// Built-in space templates as data: a page tree whose bodies are Markdown files beside the
// template's module. In those files, `(page:<key>)` / `(page:<key>#anchor)` link to another page
// of the same template, `![alt](slot:<name>)` is an image filled from a content ref, and
// `{{ template.date }}` is the date the template is applied (YYYY-MM-DD). See ./index.ts.

/** A named content ref a template accepts in `params.contentRefs`. */
export interface TemplateSlot {
  /** What the file is used for, for the template listing and error messages. */
  description: string;
  /** How the file is used: an image inside pages, or a page cover. */
  usage: 'image' | 'cover';
}

export interface TemplatePageDef {
  /** Stable key within the template; links use it (`page:<key>`). */
  key: string;
  title: string;
  emoji?: string;
  description?: string;
  /** Markdown file (relative to the template's folder); none: an empty page. */
  file?: string;
  /** Slot (usage 'cover') whose file becomes this page's cover when given. */
  cover?: string;
  children?: TemplatePageDef[];
}

export interface TemplateDef {
  id: string;
  title: string;
  subtitle: string;
  emoji: string;
  /** Short feature list (public `SpaceTemplate.features`). */
  features: string[];
  slots: Record<string, TemplateSlot>;
  pages: TemplatePageDef[];
  /** Folder holding the Markdown files (the template module's own folder). */
  dir: URL;
}
