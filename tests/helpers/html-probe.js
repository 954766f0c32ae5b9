// SPDX-License-Identifier: GPL-2.0-only
// html-probe.js - put first into a copy of an idlelab HTML page by
// tests/integration/test_html_chromium.sh.  It records every error the
// page raises (script errors, resources that fail to load, console.error,
// a request the page's Content-Security-Policy refused) and, once the
// page has loaded and each table was sorted by its first column both ways
// (the page's sort script), every image that did not decode, the inline SVG plots,
// the tables, and every resource fetched from anywhere but the page's own
// file or a data: URL; then writes one line into the DOM that
// `chromium --dump-dom` prints:
//   idlelab-probe: images=N broken=N svgs=N tables=N requests=N errors=N [details]
(function () {
	var errors = [];
	var origError = console.error;

	console.error = function () {
		errors.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
		return origError.apply(console, arguments);
	};
	// Capture phase: an <img> that fails to load fires a non-bubbling
	// error event that only a capturing listener on window sees.
	window.addEventListener('error', function (e) {
		var t = e.target;
		if (t && t !== window && (t.src || t.href))
			errors.push('failed to load: ' + (t.getAttribute('src') || t.getAttribute('href')));
		else
			errors.push('script error: ' + e.message);
	}, true);
	document.addEventListener('securitypolicyviolation', function (e) {
		errors.push('blocked by the page policy: ' + e.blockedURI);
	});
	window.addEventListener('load', function () {
		var imgs = document.images, broken = [], out = [], i, p, res, th;

		// Sort every table by its first column, both ways: an error in
		// the page's sort script is reported like any other.
		th = document.querySelectorAll('table thead th:first-child');
		for (i = 0; i < th.length; i++) {
			th[i].click();
			th[i].click();
		}

		for (i = 0; i < imgs.length; i++)
			if (!imgs[i].complete || imgs[i].naturalWidth === 0)
				broken.push(imgs[i].getAttribute('src'));
		res = performance.getEntriesByType('resource');
		for (i = 0; i < res.length; i++)
			if (!/^data:/.test(res[i].name) && !/\/probe\.js$/.test(res[i].name))
				out.push(res[i].name);
		p = document.createElement('pre');
		p.id = 'idlelab-probe';
		p.textContent = 'idlelab-probe: images=' + imgs.length +
			' broken=' + broken.length +
			' svgs=' + document.querySelectorAll('figure > svg').length +
			' tables=' + document.querySelectorAll('table').length +
			' requests=' + out.length + ' errors=' + errors.length +
			(broken.length ? ' [broken: ' + broken.join(' ') + ']' : '') +
			(out.length ? ' [requests: ' + out.join(' ') + ']' : '') +
			(errors.length ? ' [' + errors.join('; ') + ']' : '');
		document.body.appendChild(p);
	});
})();
