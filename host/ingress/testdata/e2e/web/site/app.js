// e2e site app.js: long enough that gzip pays off, so the bundle keeps a .gz variant.
const items = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
for (const item of items) {
  const li = document.createElement("li");
  li.textContent = "item " + item;
  document.getElementById("app").appendChild(li);
}
for (const item of items) {
  const li = document.createElement("li");
  li.textContent = "again " + item;
  document.getElementById("app").appendChild(li);
}
