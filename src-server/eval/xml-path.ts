/**
 * A small XML reader and the ElementTree path subset PromptLayer's XML_PATH column documents
 * (Python's `find`/`findall`): `tag`, `a/b`, `*`, `.`, `..`, `.//tag`, `//tag`, `[@attr]`,
 * `[@attr='v']`, `[tag]`, `[n]`. No DTDs or external entities are ever read.
 */
export interface XmlElement {
  tag: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  parent: XmlElement | null;
}
type XmlNode = XmlElement | string;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const decode = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name[1].toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
    return ENTITIES[name] ?? whole;
  });

export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { tag: '#document', attributes: {}, children: [], parent: null };
  let current = root;
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`Invalid XML at character ${i}: ${why}`);
  };
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const textEnd = lt < 0 ? xml.length : lt;
    if (textEnd > i) {
      const text = decode(xml.slice(i, textEnd));
      if (current !== root) current.children.push(text);
      else if (text.trim()) fail('text outside the root element');
    }
    if (lt < 0) break;
    i = lt;
    if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i);
      if (end < 0) fail('unclosed comment');
      i = end + 3;
    } else if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i);
      if (end < 0) fail('unclosed CDATA');
      current.children.push(xml.slice(i + 9, end));
      i = end + 3;
    } else if (xml.startsWith('<?', i) || xml.startsWith('<!', i)) {
      const end = xml.indexOf('>', i);
      if (end < 0) fail('unclosed declaration');
      i = end + 1;
    } else if (xml.startsWith('</', i)) {
      const end = xml.indexOf('>', i);
      const name = xml.slice(i + 2, end).trim();
      if (end < 0 || name !== current.tag) fail(`unexpected closing tag </${name}>`);
      current = current.parent!;
      i = end + 1;
    } else {
      const match = /^<([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/.exec(xml.slice(i, i + 100_000));
      if (!match) fail('malformed tag');
      const attributes: Record<string, string> = {};
      for (const a of match![2].matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attributes[a[1]] = decode(a[2] ?? a[3]);
      const element: XmlElement = { tag: match![1], attributes, children: [], parent: current };
      if (current === root && root.children.length > 0) fail('more than one root element');
      current.children.push(element);
      if (!match![3]) current = element;
      i += match![0].length;
    }
  }
  if (current !== root) fail(`<${current.tag}> is not closed`);
  const top = root.children.find((c): c is XmlElement => typeof c !== 'string');
  if (!top) fail('no root element');
  return top!;
}

const elements = (e: XmlElement) => e.children.filter((c): c is XmlElement => typeof c !== 'string');
const descendants = (e: XmlElement): XmlElement[] => elements(e).flatMap((c) => [c, ...descendants(c)]);

export function textOf(e: XmlElement): string {
  return e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

export function serializeXml(e: XmlElement): string {
  const attrs = Object.entries(e.attributes).map(([k, v]) => ` ${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('');
  const inner = e.children.map((c) => (typeof c === 'string' ? c.replace(/&/g, '&amp;').replace(/</g, '&lt;') : serializeXml(c))).join('');
  return `<${e.tag}${attrs}>${inner}</${e.tag}>`;
}

/** ElementTree semantics: the path is relative to the root element (a leading `/` is rejected there too). */
export function findAll(root: XmlElement, path: string): XmlElement[] {
  let p = path.trim();
  if (p.startsWith('//')) p = `.${p}`;
  if (p.startsWith('/')) throw new Error(`Invalid XML path '${path}': use a relative path such as './/tag'`);
  let current: XmlElement[] = [root];
  const tokens = p.split(/(\/\/|\/)/).filter((t) => t !== '');
  let descend = false;
  for (const token of tokens) {
    if (token === '/') continue;
    if (token === '//') {
      descend = true;
      continue;
    }
    const m = /^([^[\]]+)((?:\[[^\]]+\])*)$/.exec(token);
    if (!m) throw new Error(`Invalid XML path step '${token}'`);
    const [, name, predicates] = m;
    let next: XmlElement[];
    if (name === '.') next = current;
    else if (name === '..') next = current.map((e) => e.parent).filter((e): e is XmlElement => !!e && e.tag !== '#document');
    else {
      const pool = current.flatMap((e) => (descend ? descendants(e) : elements(e)));
      next = name === '*' ? pool : pool.filter((e) => e.tag === name);
    }
    descend = false;
    for (const pred of predicates.match(/\[[^\]]+\]/g) ?? []) next = filter(next, pred.slice(1, -1).trim());
    current = [...new Set(next)];
  }
  return current;
}

function filter(list: XmlElement[], pred: string): XmlElement[] {
  const attr = /^@([\w.:-]+)(?:\s*=\s*(?:'([^']*)'|"([^"]*)"))?$/.exec(pred);
  if (attr) return list.filter((e) => (attr[2] ?? attr[3]) === undefined ? attr[1] in e.attributes : e.attributes[attr[1]] === (attr[2] ?? attr[3]));
  if (/^-?\d+$/.test(pred)) {
    const n = Number(pred);
    const pick = n > 0 ? list[n - 1] : undefined;
    return pick ? [pick] : [];
  }
  if (pred === 'last()') return list.length ? [list[list.length - 1]] : [];
  const child = /^([\w.:-]+)(?:\s*=\s*(?:'([^']*)'|"([^"]*)"))?$/.exec(pred);
  if (child) {
    const want = child[2] ?? child[3];
    return list.filter((e) => elements(e).some((c) => c.tag === child[1] && (want === undefined || textOf(c) === want)));
  }
  throw new Error(`Unsupported XML path predicate [${pred}]`);
}
