// Loads the items from the api pod through the Ingress and renders them.
async function load() {
  const status = document.getElementById("status");
  try {
    const res = await fetch("/api/items", { headers: { Accept: "application/json" } });
    if (!res.ok) {
      throw new Error("GET /api/items answered " + res.status);
    }
    const data = await res.json();
    document.getElementById("greeting").textContent = data.greeting;
    const list = document.getElementById("items");
    list.replaceChildren(...data.items.map((item) => {
      const li = document.createElement("li");
      li.dataset.testid = "item";
      li.dataset.id = String(item.id);
      li.textContent = item.title;
      return li;
    }));
    status.textContent = data.items.length + " items from the api pod";
    status.dataset.state = "loaded";
  } catch (err) {
    status.textContent = "Could not load the items: " + err.message;
    status.dataset.state = "error";
  }
}

load();
