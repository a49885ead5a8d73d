// Boots the offline GraphiQL page (app/graphql/graphiql.html); kept out of the HTML so the page works
// under a Content-Security-Policy with script-src 'self'.
(function () {
  "use strict";
  var TOKEN_KEY = "tdg_token";
  var ENDPOINT = "/graphql";

  function storedToken() {
    try {
      return (window.localStorage.getItem(TOKEN_KEY) || "").trim();
    } catch (e) {
      // Storage can be disabled (privacy mode); the page then works without a token.
      return "";
    }
  }

  function authHeaders() {
    var token = storedToken();
    return token ? { Authorization: "Bearer " + token } : {};
  }

  var input = document.getElementById("tdg-token");
  var status = document.getElementById("tdg-token-status");
  status.textContent = storedToken() ? "token stored" : "no token stored";

  document.getElementById("tdg-token-bar").addEventListener("submit", function (event) {
    event.preventDefault();
    var value = input.value.trim();
    if (!value) { return; }
    try {
      window.localStorage.setItem(TOKEN_KEY, value);
    } catch (e) {
      status.textContent = "cannot store the token: browser storage is disabled";
      return;
    }
    // Reload so the Headers tab is prefilled with the new token.
    window.location.reload();
  });
  document.getElementById("tdg-token-clear").addEventListener("click", function () {
    try {
      window.localStorage.removeItem(TOKEN_KEY);
    } catch (e) {
      // Nothing was stored if storage is disabled.
    }
    window.location.reload();
  });

  // The token is read on every request so a token saved in another tab is picked up;
  // headers typed into GraphiQL's Headers tab are merged last and therefore win.
  function fetcher(params, opts) {
    return GraphiQL.createFetcher({ url: ENDPOINT, headers: authHeaders() })(params, opts);
  }

  var prefill = authHeaders();
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: Object.keys(prefill).length ? JSON.stringify(prefill, null, 2) : undefined,
      defaultEditorToolsVisibility: Object.keys(prefill).length ? "headers" : undefined,
      // Never write the bearer token to localStorage under GraphiQL's own keys.
      shouldPersistHeaders: false,
    })
  );
})();
