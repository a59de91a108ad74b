// e2e app.js, in the site bundle and (linked) in the whoami bundle: long enough that gzip pays off, so each bundle keeps a .gz variant.
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
