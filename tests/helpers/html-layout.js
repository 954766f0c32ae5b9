// SPDX-License-Identifier: GPL-2.0-only
// html-layout.js - put first into a copy of an idlelab HTML page by
// tests/helpers/html-check.sh (layout), opened at a laptop's width.  Once
// the page has loaded it measures what a reader of a 1366-pixel screen
// sees, and writes one line into the DOM that `chromium --dump-dom` prints:
//   idlelab-layout: width=N page=N tables=N kv=N kv_offscreen=N
//     kv_right=N unstuck=N wide=N
// width: the window's; page: the document's width (more than width: the
// whole page scrolls sideways); kv: the key/value tables (two columns),
// kv_offscreen: their cells that end past the window's right edge or
// past what their table shows before it is scrolled,
// kv_right: their cells aligned right (a short number at the far edge of
// a column of text); unstuck: tables whose first column scrolls away
// with the rest; wide: tables that scroll inside themselves.
(function () {
	window.addEventListener('load', function () {
		var t = document.querySelectorAll('table'), w = window.innerWidth;
		var kv = 0, off = 0, right = 0, unstuck = 0, wide = 0, i, j, c, p, edge;

		for (i = 0; i < t.length; i++) {
			c = t[i].querySelector('tbody tr > :first-child');
			if (c && getComputedStyle(c).position !== 'sticky')
				unstuck++;
			if (t[i].scrollWidth > t[i].clientWidth + 1)
				wide++;
			if (!t[i].tHead || t[i].tHead.rows[0].cells.length !== 2)
				continue;
			kv++;
			// What the table shows before it is scrolled.
			edge = Math.min(w, t[i].getBoundingClientRect().right) + 1;
			c = t[i].querySelectorAll('td');
			for (j = 0; j < c.length; j++) {
				var a = getComputedStyle(c[j]).textAlign;

				if (c[j].getBoundingClientRect().right > edge)
					off++;
				if (a === 'right' || a === 'end')
					right++;
			}
		}
		p = document.createElement('pre');
		p.id = 'idlelab-layout';
		p.textContent = 'idlelab-layout: width=' + w +
			' page=' + document.documentElement.scrollWidth +
			' tables=' + t.length + ' kv=' + kv + ' kv_offscreen=' + off +
			' kv_right=' + right + ' unstuck=' + unstuck + ' wide=' + wide;
		document.body.appendChild(p);
	});
})();
