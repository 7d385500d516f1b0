import assert from "node:assert/strict";
import { test } from "node:test";
import { JsonPath, JsonPathExecutionError, MAX_RANGE_DEPTH, MAX_VALUES } from "./jsonpath-eval.js";
import { JsonPathSyntaxError, MAX_TEMPLATE_LENGTH } from "./jsonpath-parser.js";

// Inputs and expectations from client-go's jsonpath_test.go (TestTypesInput, TestStructInput as
// JSON, TestJSONInput, TestKubernetes, TestEmptyRange), the cases that apply to JSON data.
const types = {
  bools: [true, false, true, false],
  integers: [1, 2, 3, 4],
  floats: [1.0, 2.2, 3.3, 4.0],
  strings: ["one", "two", "three", "four"],
  interfaces: [true, "one", 1, 1.1],
  maps: [{ name: "one", value: 1 }, { name: "two", value: 2.02 }, { name: "three", value: 3.03 }, { name: "four", value: 4.04 }],
};
const store = {
  Name: "jsonpath",
  Book: [
    { Category: "reference", Author: "Nigel Rees", Title: "Sayings of the Centurey", Price: 8.95 },
    { Category: "fiction", Author: "Evelyn Waugh", Title: "Sword of Honour", Price: 12.99 },
    { Category: "fiction", Author: "Herman Melville", Title: "Moby Dick", Price: 8.99 },
  ],
  Bicycle: [{ Color: "red", Price: 19.95, IsNew: true }, { Color: "green", Price: 20.01, IsNew: false }],
  Labels: { engieer: 10, "web/html": 15, "k8s-app": 20 },
  Employees: { jason: "manager", dan: "clerk" },
};
const points = [
  { id: "i1", x: 4, y: -5 }, { id: "i2", x: -2, y: -5, z: 1 }, { id: "i3", x: 8, y: 3 },
  { id: "i4", x: -6, y: -1 }, { id: "i5", x: 0, y: 2, z: 1 }, { id: "i6", x: 1, y: 4 },
];
const nodes = {
  kind: "List",
  items: [
    { kind: "None", metadata: { name: "127.0.0.1", labels: { "kubernetes.io/hostname": "127.0.0.1" } }, status: { capacity: { cpu: "4" }, ready: true, addresses: [{ type: "LegacyHostIP", address: "127.0.0.1" }] } },
    { kind: "None", metadata: { name: "127.0.0.2", labels: { "kubernetes.io/hostname": "127.0.0.2" } }, status: { capacity: { cpu: "8" }, ready: false, addresses: [{ type: "LegacyHostIP", address: "127.0.0.2" }, { type: "another", address: "127.0.0.3" }] } },
  ],
  users: [{ name: "myself", user: {} }, { name: "e2e", user: { username: "admin", password: "secret" } }],
};

test("JSONPath templates print what kubectl's (client-go) JSONPath prints", () => {
  const cases: { template: string; input: unknown; want: string }[] = [
    { template: "{ .bools }", input: types, want: "[true,false,true,false]" },
    { template: "{ .bools[-1] }", input: types, want: "false" },
    { template: "{ .bools[0:2] }", input: types, want: "true false" },
    { template: "{ .bools[:4:2] }", input: types, want: "true true" },
    { template: "{ .integers[-2] }", input: types, want: "3" },
    { template: "{ .floats }", input: types, want: "[1,2.2,3.3,4]" },
    { template: "{ .floats[:4:2] }", input: types, want: "1 3.3" },
    { template: "{ .strings[0] }", input: types, want: "one" },
    { template: "{ .interfaces }", input: types, want: '[true,"one",1,1.1]' },
    { template: "{ .maps[-2] }", input: types, want: '{"name":"three","value":3.03}' },
    { template: "{ .maps[1::2] }", input: types, want: '{"name":"two","value":2.02} {"name":"four","value":4.04}' },
    { template: "hello jsonpath", input: null, want: "hello jsonpath" },
    { template: "{..}", input: [1, 2, 3], want: "[1,2,3]" },
    { template: "{[?(@<5)]}", input: [2, 6, 3, 7], want: "2 3" },
    { template: '{"{"}', input: null, want: "{" },
    { template: "{[1,3,4]}", input: [0, 1, 2, 3, 4], want: "1 3 4" },
    { template: "{[0:2]}", input: ["Monday", "Tudesday"], want: "Monday Tudesday" },
    { template: "hello {.Name}", input: store, want: "hello jsonpath" },
    { template: "{$.Labels.web/html}", input: store, want: "15" },
    { template: "{$.Employees.jason}", input: store, want: "manager" },
    { template: "{.Labels.k8s-app}", input: store, want: "20" },
    { template: "{.Bicycle[*].Color}", input: store, want: "red green" },
    { template: "{.Book[*].Author}", input: store, want: "Nigel Rees Evelyn Waugh Herman Melville" },
    { template: '{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}', input: store, want: "{red 19.95 true} {green 20.01 false} " },
    { template: "{..Price}", input: store, want: "8.95 12.99 8.99 19.95 20.01" },
    { template: "{...Price}", input: store, want: "8.95 12.99 8.99 19.95 20.01" },
    { template: "{.Book[-1:]}", input: store, want: '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}' },
    { template: "{..Book[2]}", input: store, want: '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}' },
    { template: "{.Bicycle[?(@.IsNew==true)]}", input: store, want: '{"Color":"red","IsNew":true,"Price":19.95}' },
    { template: "{.hello}", input: store, want: "" },
    { template: "before-{.hello}after", input: store, want: "before-after" },
    { template: "{[?(@.z)].id}", input: points, want: "i2 i5" },
    { template: "{[0]['id']}", input: points, want: "i1" },
    { template: "{range .items[*]}{.metadata.name}, {end}{.kind}", input: nodes, want: "127.0.0.1, 127.0.0.2, List" },
    { template: '{range .items[*]}{.metadata.name}{"\\t"}{end}', input: nodes, want: "127.0.0.1\t127.0.0.2\t" },
    { template: "{.items[*].status.addresses[*].address}", input: nodes, want: "127.0.0.1 127.0.0.2 127.0.0.3" },
    { template: "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", input: nodes, want: "127.0.0.1, 127.0.0.2, 127.0.0.3, " },
    { template: "{.items[*]['metadata.name', 'status.capacity']}", input: nodes, want: '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}' },
    { template: "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}", input: nodes, want: '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ' },
    { template: '{.users[?(@.name=="e2e")].user.password}', input: nodes, want: "secret" },
    { template: "{.items[0].metadata.labels.kubernetes\\.io/hostname}", input: nodes, want: "127.0.0.1" },
    { template: '{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', input: nodes, want: "None" },
    { template: "{.items[?(@..ready==true)].metadata.name}", input: nodes, want: "127.0.0.1" },
    { template: "{range .items[*]}{.metadata.name}{end}", input: { items: [] }, want: "" },
    { template: '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}', input: { items: [] }, want: "" },
    // A filter skips elements that lack the compared field, as kubectl does with missing keys allowed.
    { template: '{.items[?(@.metadata.labels.app=="web")].metadata.name}', input: { items: [{ metadata: { name: "a" } }, { metadata: { name: "b", labels: { app: "web" } } }] }, want: "b" },
  ];
  for (const c of cases) assert.equal(new JsonPath(c.template).execute(c.input), c.want, c.template);
});

test("bad templates fail to parse with client-go's messages", () => {
  const cases: { template: string; message: string }[] = [
    { template: "{.items[", message: "unterminated array" },
    { template: "{.items", message: "unclosed action" },
    { template: "{.items[?(@.x==1]}", message: "unterminated filter" },
    { template: "{.items[?(@.x==1)}", message: "unclosed array expect ]" },
    { template: '{"abc}', message: "unterminated quoted string" },
    { template: "{.a[x]}", message: "invalid array index x" },
    { template: "{....Price}", message: "invalid multiple recursive descent" },
    { template: "{%}", message: "unrecognized character in action: U+0025 '%'" },
    { template: "{1.2.3}", message: "cannot parse number 1.2.3" },
    { template: `{"\\q"}`, message: `unquote string "\\q" error invalid syntax` },
    { template: `{${"x".repeat(MAX_TEMPLATE_LENGTH)}}`, message: `template is longer than ${MAX_TEMPLATE_LENGTH} characters` },
  ];
  for (const c of cases) {
    assert.throws(() => new JsonPath(c.template), (err: unknown) => err instanceof JsonPathSyntaxError && err.message === c.message, c.template);
  }
});

test("templates that fail on the data say why, with client-go's messages", () => {
  const cases: { template: string; input: unknown; message: string }[] = [
    { template: "{hello}", input: store, message: "unrecognized identifier hello" },
    { template: "{.Labels[0]}", input: store, message: "map[string]interface {} is not array or slice" },
    { template: "{.Book[?(@.Price<>10)]}", input: store, message: "unrecognized filter operator <>" },
    { template: "{range .Labels.*}{@}{end}{end}", input: store, message: "not in range, nothing to end" },
    { template: "{.items[0]}", input: { items: [] }, message: "array index out of bounds: index 0, length 0" },
    { template: '{.Book[?(@.Price=="x")]}', input: store, message: "incompatible types for comparison" },
  ];
  for (const c of cases) {
    assert.throws(() => new JsonPath(c.template).execute(c.input), (err: unknown) => err instanceof JsonPathExecutionError && err.message === c.message, c.template);
  }
});

test("evaluation is bounded: values produced and range nesting", () => {
  const wide = { items: Array.from({ length: 1100 }, () => ({ a: Array.from({ length: 1000 }, (_, i) => i) })) };
  assert.throws(() => new JsonPath("{.items[*].a[*]}").execute(wide), new RegExp(`more than ${MAX_VALUES} values`));
  const deep = "{range @}".repeat(MAX_RANGE_DEPTH + 1) + "x" + "{end}".repeat(MAX_RANGE_DEPTH + 1);
  assert.throws(() => new JsonPath(deep).execute([[1]]), /nested deeper than/);
  assert.equal(new JsonPath("{range @}".repeat(3) + "x" + "{end}".repeat(3)).execute([[[1]]]), "x");
});
