// The label selector lexer (apimachinery labels/selector.go Lexer): identifiers, the keywords
// `in` and `notin`, and the operator symbols = == != ! ( ) , > <. Whitespace (space, tab, CR,
// LF) separates tokens; a NUL character ends the input, as Go's byte reader does.

/** LabelToken is the kind of one lexed item. */
export type LabelToken =
  | "end" | "closedPar" | "comma" | "doesNotExist" | "doubleEquals" | "equals" | "greaterThan"
  | "identifier" | "in" | "lessThan" | "notEquals" | "notIn" | "openPar";

/** ScannedItem is one token and its literal text. */
export interface ScannedItem {
  readonly token: LabelToken;
  readonly literal: string;
}

const LITERAL_TOKENS: Readonly<Record<string, LabelToken>> = {
  ")": "closedPar", ",": "comma", "!": "doesNotExist", "==": "doubleEquals", "=": "equals", ">": "greaterThan",
  in: "in", "<": "lessThan", "!=": "notEquals", notin: "notIn", "(": "openPar",
};

const isWhitespace = (ch: string): boolean => ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
const isSpecialSymbol = (ch: string): boolean => ch.length === 1 && "=!(),><".includes(ch);

/** lexLabelSelector splits a selector into tokens, always ending with an "end" item. */
export function lexLabelSelector(text: string): ScannedItem[] {
  const items: ScannedItem[] = [];
  let pos = 0;
  const peek = (): string => (pos < text.length && text[pos] !== "\0" ? text[pos]! : "");
  for (;;) {
    while (peek() !== "" && isWhitespace(peek())) pos++;
    const ch = peek();
    if (ch === "") {
      items.push({ token: "end", literal: "" });
      return items;
    }
    if (isSpecialSymbol(ch)) {
      // Longest run of symbols that is still a token: "!=" and "==" are one token, "=(" two.
      let literal = ch;
      pos++;
      while (isSpecialSymbol(peek()) && LITERAL_TOKENS[literal + peek()] !== undefined) literal += text[pos++];
      items.push({ token: LITERAL_TOKENS[literal]!, literal });
      continue;
    }
    const start = pos;
    while (peek() !== "" && !isSpecialSymbol(peek()) && !isWhitespace(peek())) pos++;
    const literal = text.slice(start, pos);
    items.push({ token: LITERAL_TOKENS[literal] ?? "identifier", literal });
  }
}
