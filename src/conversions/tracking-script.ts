/**
 * The tracking script served at /svc.js (no dependencies, ~1 KB). On a landing page it reads
 * `svc=<svc_id>`, keeps `_svcsession={session_id}:{svc_id}` on the customer's own domain, and offers
 * `svc.convert('goal_1', value)` and `svc.pageview()`, which record conversions with the key given
 * as `data-key` on the script tag: the project's publishable key, since the page publishes it
 * (docs/api.md, "Keys"; the API key still works, but anyone reading the page could then use it).
 *
 * The cookie's colons are written as they are (RFC 6265 allows them in a cookie value), so a
 * customer's server splits the raw value on its first colon; any other character unsafe in a cookie
 * is percent-encoded. Earlier versions encoded the whole value (the colon as %3A): reading decodes,
 * so their cookies still work.
 */
export const TRACKING_SCRIPT = `/* svc tracking script */
(function (w, d) {
  'use strict';
  var script = d.currentScript || (function () { var s = d.getElementsByTagName('script'); return s[s.length - 1]; })();
  var base = script.src.replace(/\\/svc\\.js(\\?.*)?$/, '');
  var key = script.getAttribute('data-key');
  var NAME = '_svcsession';
  var DAYS = 30;
  function read() {
    var m = d.cookie.match(/(?:^|;\\s*)_svcsession=([^;]*)/);
    if (!m) return null;
    var value;
    try { value = decodeURIComponent(m[1]); } catch (e) { return null; }
    var i = value.indexOf(':');
    return i < 1 ? null : { id: value.slice(0, i), svc: value.slice(i + 1) };
  }
  function write(id, svc) {
    var value = (encodeURIComponent(id) + ':' + encodeURIComponent(svc)).replace(/%3A/gi, ':');
    d.cookie = NAME + '=' + value + '; path=/; max-age=' + DAYS * 86400 + '; SameSite=Lax';
  }
  function newId() {
    if (w.crypto && w.crypto.randomUUID) return w.crypto.randomUUID();
    return 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, function (c) {
      var r = (Math.random() * 16) | 0;
      return (c === 'x' ? r : (r & 3) | 8).toString(16);
    });
  }
  var svc = new URLSearchParams(w.location.search).get('svc');
  if (svc) {
    var current = read();
    var id = current && current.svc === svc ? current.id : newId();
    write(id, svc);
  }
  function send(type, value) {
    var s = read();
    if (!s || !key) return false;
    var q = new URLSearchParams({
      key: key, svc_url: s.svc, conversion_type: type, conversion_value: String(Math.round(value || 0)),
      session_id: s.id, read_headers: 'true', href: w.location.href
    });
    var url = base + '/conversions/new?' + q.toString();
    if (w.navigator.sendBeacon && w.navigator.sendBeacon(url)) return true;
    new Image().src = url;
    return true;
  }
  w.svc = {
    convert: function (goal, value) { return send(goal, value); },
    pageview: function () { return send('pageview', 0); },
    session: read
  };
})(window, document);
`;
