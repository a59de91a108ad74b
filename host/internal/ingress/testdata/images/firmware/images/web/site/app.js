console.log("app.js of the site bundle");
