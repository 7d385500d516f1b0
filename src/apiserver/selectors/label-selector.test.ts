import { test } from "node:test";
import assert from "node:assert/strict";
import { lexLabelSelector } from "./label-lexer.js";
import { parseLabelSelector } from "./label-selector.js";
import { SelectorError } from "./selector-error.js";
import { BadRequestError } from "../bad-request-error.js";

const NAME_PART_REGEX =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorError && err instanceof BadRequestError, `not a SelectorError: ${String(err)}`);
    return err.message;
  }
  assert.fail(`${JSON.stringify(text)} parsed`);
}

// upstream selector_test.go TestLexer and TestLexerSequence.
test("label selector: the lexer yields upstream's tokens, longest operator first", () => {
  const cases: [string, string[]][] = [
    ["", []],
    [",", ["comma"]],
    ["notin", ["notIn"]],
    ["in", ["in"]],
    ["==", ["doubleEquals"]],
    ["!", ["doesNotExist"]],
    ["!=", ["notEquals"]],
    ["~", ["identifier"]],
    ["||", ["identifier"]],
    ["key in ( value1, value2 )", ["identifier", "in", "openPar", "identifier", "comma", "identifier", "closedPar"]],
    ["x in (),y", ["identifier", "in", "openPar", "closedPar", "comma", "identifier"]],
    ["== != (), = notin", ["doubleEquals", "notEquals", "openPar", "closedPar", "comma", "equals", "notIn"]],
    ["key>2", ["identifier", "greaterThan", "identifier"]],
    ["key<1", ["identifier", "lessThan", "identifier"]],
  ];
  for (const [text, tokens] of cases) {
    const items = lexLabelSelector(text);
    assert.deepEqual(items.map((i) => i.token), [...tokens, "end"], text);
  }
});

// upstream selector_test.go TestSelectorParse (good strings): the canonical form drops blanks.
test("label selector: valid selectors round-trip to their canonical form", () => {
  for (const text of ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"]) {
    assert.equal(parseLabelSelector(text).toString(), text.replaceAll(" ", ""), text);
  }
});

// upstream TestSetSelectorParser and TestToString.
test("label selector: toString sorts requirements by key and values within a set", () => {
  const cases: [string, string][] = [
    ["\rx", "x"],
    ["foo  in\t (abc)", "foo in (abc)"],
    ["x  notin\t\t(def,abc)", "x notin (abc,def)"],
    ["x in (abc,)", "x in (,abc)"],
    ["x in ()", "x in ()"],
    ["x in (,)", "x in ()"],
    ["x notin (abc,def),bar,z in (),w", "bar,w,x notin (abc,def),z in ()"],
    ["x=a,a=x", "a=x,x=a"],
    ["x==abc,y!=jkl,!z", "x==abc,y!=jkl,!z"],
    ["0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"],
    ["in in (in,notin)", "in in (in,notin)"],
  ];
  for (const [text, canonical] of cases) assert.equal(parseLabelSelector(text).toString(), canonical, text);
});

// upstream TestSelectorMatches and TestRequirementSelectorMatching.
test("label selector: matches follows Requirement.Matches for every operator", () => {
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ["", { x: "y" }, true],
    ["", undefined, true],
    ["x=y", { x: "y" }, true],
    ["x==y", { x: "y" }, true],
    ["x=y,z=w", { x: "y", z: "w" }, true],
    ["x!=y,z!=w", { x: "z", z: "a" }, true],
    ["notin=in", { notin: "in" }, true],
    ["x", { x: "z" }, true],
    ["!x", { y: "z" }, true],
    ["x>1", { x: "2" }, true],
    ["x<1", { x: "0" }, true],
    ["x<1", { x: "-5" }, true],
    ["x=z", {}, false],
    ["x=z", undefined, false],
    ["x=y", { x: "z" }, false],
    ["x=y,z=w", { x: "w", z: "w" }, false],
    ["x!=y,z!=w", { x: "z", z: "w" }, false],
    ["x", { y: "z" }, false],
    ["!x", { x: "z" }, false],
    ["x>1", { x: "0" }, false],
    ["x>1", { x: "v2" }, false],
    ["x>1", {}, false],
    ["x<1", { x: "2" }, false],
    ["x in (foo),y notin (alpha)", { x: "foo", y: "baz" }, true],
    ["x in (foo),y in (alpha)", { x: "foo", y: "baz" }, false],
    ["x notin (),y", { y: "" }, true],
    ["!x,y", { y: "" }, true],
    ["x notin (),!y", { y: "" }, false],
    ["x in ()", { y: "baz" }, false],
    ["x in ()", { x: "" }, true],
    ["x=", { x: "" }, true],
    ["x,y in (a)", { y: "a" }, false],
  ];
  for (const [text, labels, want] of cases) assert.equal(parseLabelSelector(text).matches(labels), want, `${text} on ${JSON.stringify(labels)}`);
});

test("label selector: notin matches objects without the key", () => {
  const selector = parseLabelSelector("env notin (prod,staging)");
  assert.equal(selector.matches({ app: "web" }), true);
  assert.equal(selector.matches({ env: "dev" }), true);
  assert.equal(selector.matches({ env: "prod" }), false);
});

test("label selector: != matches objects without the key", () => {
  assert.equal(parseLabelSelector("env!=prod").matches({}), true);
});

test("label selector: > and < compare 64-bit integers and never match a non-integer label", () => {
  assert.equal(parseLabelSelector("n>9223372036854775806").matches({ n: "9223372036854775807" }), true);
  assert.equal(parseLabelSelector("n<0").matches({ n: "-9223372036854775808" }), true);
  assert.equal(parseLabelSelector("n>1").matches({ n: "9223372036854775808" }), false, "out of int64 range");
  assert.equal(parseLabelSelector("n>1").matches({ n: "1.5" }), false);
  assert.equal(parseLabelSelector("n<10").matches({ n: "+3" }), true, "ParseInt accepts a sign");
});

test("label selector: empty is true only for a selector without requirements", () => {
  assert.equal(parseLabelSelector("").empty, true);
  assert.equal(parseLabelSelector("  ").empty, true);
  assert.equal(parseLabelSelector("x").empty, false);
});

// The messages of labels/selector.go's Parser, wrapped by parse() where a requirement failed.
test("label selector: syntax errors carry the parser's messages", () => {
  const cases: [string, string][] = [
    ["x==a==b", "found '==', expected: ',' or 'end of string'"],
    ["!x=a", "found '=', expected: ',' or 'end of string'"],
    ["x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ["x in", "unable to parse requirement: found '' expected: '('"],
    ["x in (a", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ["x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ["x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"],
    ["x=(", "unable to parse requirement: found '(', expected: identifier"],
    ["x,", "found '', expected: identifier after ','"],
    ["x,,y", "found ',', expected: identifier after ','"],
    [",x", "found ',', expected: !, identifier, or 'end of string'"],
    ["=x", "found '=', expected: !, identifier, or 'end of string'"],
    ["!", "unable to parse requirement: found '', expected: identifier"],
    ["!=x", "found '!=', expected: !, identifier, or 'end of string'"],
    ["x in (a),", "found '', expected: identifier after ','"],
  ];
  for (const [text, message] of cases) {
    assert.equal(parseError(text), message, text);
  }
});

// Messages seen from real API servers (kubectl issue reports) and upstream's test tables.
test("label selector: keys are validated as qualified names with the API server's message", () => {
  assert.equal(parseError("app:monolith"), `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${NAME_PART_REGEX}`);
  assert.equal(parseError("*bar"), `unable to parse requirement: <nil>: Invalid value: "*bar": ${NAME_PART_REGEX}`);
  assert.equal(
    parseError("a/b/c ?=? def"),
    `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${NAME_PART_REGEX.slice("name part ".length)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
  );
  assert.equal(
    parseError("app.kubernetes_io/name=x"),
    "unable to parse requirement: <nil>: Invalid value: \"app.kubernetes_io/name\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  );
  assert.equal(parseError("/x"), 'unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty');
  const long = "a".repeat(64);
  assert.equal(parseError(long), `unable to parse requirement: <nil>: Invalid value: "${long}": name part must be no more than 63 characters`);
});

test("label selector: values longer than 63 characters or with bad characters are refused", () => {
  const long = "v".repeat(64);
  assert.equal(parseError(`x=${long}`), `unable to parse requirement: values[0][x]: Invalid value: "${long}": must be no more than 63 characters`);
  assert.equal(parseError("x=a||y=b"), `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE_REGEX}`);
  assert.equal(parseError("x in (a,-b)"), `unable to parse requirement: values[0][x]: Invalid value: "-b": ${LABEL_VALUE_REGEX}`);
  assert.equal(
    parseError("x in (-a,-b)"),
    `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${LABEL_VALUE_REGEX}, values[1][x]: Invalid value: "-b": ${LABEL_VALUE_REGEX}]`,
  );
});

test("label selector: > and < need an integer value", () => {
  assert.equal(parseError("x<a"), 'unable to parse requirement: values[0]: Invalid value: "a": for \'Gt\', \'Lt\' operators, the value must be an integer');
  assert.equal(parseError("x>"), 'unable to parse requirement: values[0]: Invalid value: "": for \'Gt\', \'Lt\' operators, the value must be an integer');
});

test("label selector: an over-long selector is refused before parsing", () => {
  assert.match(parseError(`x in (${"a,".repeat(40_000)}a)`), /^label selector is longer than 65536 characters$/);
});
