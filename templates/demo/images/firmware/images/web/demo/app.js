// Sends the message to the echo pod through the Ingress and shows its reply.
async function send(message) {
  const reply = document.getElementById("reply");
  try {
    const res = await fetch("/echo/hello", { method: "POST", body: message });
    const data = await res.json();
    reply.textContent = JSON.stringify(data, null, 2);
    reply.dataset.greeting = data.greeting;
  } catch (err) {
    reply.textContent = "request failed: " + err;
  }
}

document.getElementById("send").addEventListener("submit", (event) => {
  event.preventDefault();
  send(document.getElementById("message").value);
});
send(document.getElementById("message").value);
