import assert from "node:assert/strict";
import { test } from "node:test";
import { CustomColumnsError, customColumnCells, parseCustomColumns, parseCustomColumnsFile, relaxedJsonPath } from "./custom-columns.js";
import { formatLabels } from "./label-column.js";
import { isTable, tableHeaders, tableRows } from "./server-table.js";

test("relaxedJsonPath accepts kubectl's four spellings of a column path", () => {
  for (const spelling of [".metadata.name", "metadata.name", "{.metadata.name}", "{metadata.name}"]) assert.equal(relaxedJsonPath(spelling), "{.metadata.name}", spelling);
  assert.throws(() => relaxedJsonPath("{a}{b}"), CustomColumnsError);
});

test("custom column cells join several results with commas and print <none> for none", () => {
  const columns = parseCustomColumns("NAME:.metadata.name,PORTS:.spec.ports[*].port,MISSING:.spec.nothing");
  assert.deepEqual(columns.map((c) => c.header), ["NAME", "PORTS", "MISSING"]);
  assert.deepEqual(customColumnCells(columns, { metadata: { name: "web" }, spec: { ports: [{ port: 80 }, { port: 443 }] } }), ["web", "80,443", "<none>"]);
  assert.throws(() => parseCustomColumns("NAME:.items["), new CustomColumnsError("error parsing jsonpath {.items[}, unterminated array"));
  assert.throws(() => parseCustomColumnsFile("NAME AGE\n.metadata.name\n"), new CustomColumnsError("number of headers (2) does not match number of paths (1)"));
  assert.throws(() => parseCustomColumns(Array.from({ length: 300 }, (_, i) => `C${i}:.a`).join(",")), /at most 256 custom columns/);
});

test("formatLabels renders labels as kubectl's LABELS column: sorted pairs, <none> when empty", () => {
  assert.equal(formatLabels({ tier: "fe", app: "web" }), "app=web,tier=fe");
  assert.equal(formatLabels({}), "<none>");
  assert.equal(formatLabels(undefined), "<none>");
});

test("a served Table prints upper-cased priority-0 columns, all columns when wide, cells as text", () => {
  const table = {
    kind: "Table",
    columnDefinitions: [{ name: "Name", priority: 0 }, { name: "Data", priority: 0 }, { name: "Extra", priority: 1 }],
    rows: [{ cells: ["cm", 3, null], object: { metadata: { namespace: "prod", labels: { a: "b" } } } }],
  };
  assert.ok(isTable(table));
  assert.equal(isTable({ kind: "List", items: [] }), false);
  const narrow = { wide: false, withNamespace: false, showLabels: false };
  assert.deepEqual(tableHeaders(table, narrow), ["NAME", "DATA"]);
  assert.deepEqual(tableRows(table, narrow), [["cm", "3"]]);
  const wide = { wide: true, withNamespace: true, showLabels: true };
  assert.deepEqual(tableHeaders(table, wide), ["NAMESPACE", "NAME", "DATA", "EXTRA", "LABELS"]);
  assert.deepEqual(tableRows(table, wide), [["prod", "cm", "3", "<none>", "a=b"]]);
});
