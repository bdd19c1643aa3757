/**
 * A small strict parser of RFC 9651 Lists (§4.2.1), written for the tests so that the service's serializer
 * (structured-headers) is checked by code that shares nothing with it. Items are Integers, Decimals, Strings,
 * Tokens, Byte Sequences and Booleans with Parameters; Inner Lists are parsed too. Anything else, or any
 * deviation from the grammar, throws: a lenient parser would let malformed fields through.
 */
export type BareItem = number | string | boolean | { token: string } | { bytes: string };
export interface Item {
  value: BareItem | Item[];
  params: Map<string, BareItem>;
}

export function parseList(field: string): Item[] {
  const p = new Parser(field.replace(/^ +| +$/g, ''));
  const members: Item[] = [];
  while (!p.done()) {
    members.push(p.peek() === '(' ? p.innerList() : p.item());
    p.skipOws();
    if (p.done()) return members;
    p.expect(',');
    p.skipOws();
    if (p.done()) throw new SyntaxError(`trailing comma in ${JSON.stringify(field)}`);
  }
  return members;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done = () => this.i >= this.s.length;
  peek = () => this.s[this.i];
  skipOws() {
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
  }
  expect(char: string) {
    if (this.s[this.i] !== char) throw new SyntaxError(`expected ${char} at ${this.i} of ${JSON.stringify(this.s)}`);
    this.i++;
  }

  innerList(): Item {
    this.expect('(');
    const items: Item[] = [];
    for (;;) {
      while (this.peek() === ' ') this.i++;
      if (this.peek() === ')') break;
      items.push(this.item());
      if (this.peek() !== ' ' && this.peek() !== ')') throw new SyntaxError(`bad inner list at ${this.i}`);
    }
    this.i++;
    return { value: items, params: this.params() };
  }

  item(): Item {
    return { value: this.bareItem(), params: this.params() };
  }

  params(): Map<string, BareItem> {
    const params = new Map<string, BareItem>();
    while (this.peek() === ';') {
      this.i++;
      while (this.peek() === ' ') this.i++;
      const key = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.i++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  key(): string {
    const match = /^[a-z*][a-z0-9_\-.*]*/.exec(this.s.slice(this.i));
    if (!match) throw new SyntaxError(`bad key at ${this.i} of ${JSON.stringify(this.s)}`);
    this.i += match[0].length;
    return match[0];
  }

  bareItem(): BareItem {
    const rest = this.s.slice(this.i);
    const c = rest[0];
    if (c === '"') return this.string();
    if (c === ':') {
      const match = /^:([A-Za-z0-9+/=]*):/.exec(rest);
      if (!match) throw new SyntaxError(`bad byte sequence at ${this.i}`);
      this.i += match[0].length;
      return { bytes: match[1] };
    }
    if (c === '?') {
      if (rest[1] !== '0' && rest[1] !== '1') throw new SyntaxError(`bad boolean at ${this.i}`);
      this.i += 2;
      return rest[1] === '1';
    }
    if (c !== undefined && /[-0-9]/.test(c)) {
      // §4.2.4: at most 15 integer digits, or 12 before and 3 after a decimal point.
      const match = /^-?(\d{1,12}\.\d{1,3}(?!\d)|\d{1,15}(?![\d.]))/.exec(rest);
      if (!match) throw new SyntaxError(`bad number at ${this.i} of ${JSON.stringify(this.s)}`);
      this.i += match[0].length;
      return Number(match[0]);
    }
    const token = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(rest);
    if (!token) throw new SyntaxError(`bad item at ${this.i} of ${JSON.stringify(this.s)}`);
    this.i += token[0].length;
    return { token: token[0] };
  }

  string(): string {
    this.expect('"');
    let out = '';
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined) throw new SyntaxError('unterminated string');
      if (c === '"') return out;
      if (c === '\\') {
        const next = this.s[this.i++];
        if (next !== '"' && next !== '\\') throw new SyntaxError(`bad escape at ${this.i}`);
        out += next;
      } else if (c < ' ' || c > '~') {
        throw new SyntaxError(`character ${JSON.stringify(c)} not allowed in a string`);
      } else out += c;
    }
  }
}
