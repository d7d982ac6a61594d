import { test } from "node:test";
import assert from "node:assert/strict";
import { errorMessage, extendMessage } from "../../lib/runtime/error-message";

test("an error's message grows once, in the message and in the stack's first line, whether or not the stack was read before", () => {
  const unread = new Error("the engine went away");
  extendMessage(unread, ". 2 of 6 trials finished");
  assert.equal(unread.message, "the engine went away. 2 of 6 trials finished");
  assert.equal(unread.stack?.split("\n")[0], "Error: the engine went away. 2 of 6 trials finished");

  const read = new Error("the engine went away");
  void read.stack;
  extendMessage(read, ". 2 of 6 trials finished");
  assert.equal(read.stack?.split("\n")[0], "Error: the engine went away. 2 of 6 trials finished");
});

test("what was thrown, as text: an Error's message (its subclasses' too), anything else as String gives it", () => {
  assert.equal(errorMessage(new TypeError("x is not a function")), "x is not a function");
  assert.equal(errorMessage(new Error("")), "");
  assert.equal(errorMessage("the server went away"), "the server went away");
  assert.equal(errorMessage(undefined), "undefined");
  assert.equal(errorMessage({ code: "57P01" }), "[object Object]");
});
