// SPDX-License-Identifier: GPL-2.0-only
// html-pick.js - put first into a copy of a published site by
// tests/helpers/html-check.sh (pick).  Once the page has loaded it clears
// every box of the machine picker but the first, as a reader would, and
// writes one line into the DOM that `chromium --dump-dom` prints:
//   idlelab-pick: boxes=N cols_before=N cols_after=N rows_before=N
//     rows_after=N dash_rows_after=N
// cols: the side-by-side table's header cells shown; rows: its body rows
// shown; dash_rows_after: shown rows whose shown machine cells are all
// "-" (the picker hides those, so 0).
(function () {
	window.addEventListener('load', function () {
		var f = document.querySelector('form.pick'), out = [];
		var t = f && document.querySelector('#' + f.getAttribute('data-table') + ' table');
		function shown(list) {
			return Array.prototype.filter.call(list, function (e) {
				return getComputedStyle(e).display !== 'none'; });
		}
		function count() {
			var rows = shown(t.tBodies[0].rows), dash = 0;
			rows.forEach(function (r) {
				var cells = shown(r.cells).slice(5);
				if (cells.every(function (c) { return c.textContent === '-'; }))
					dash++;
			});
			return [shown(t.tHead.rows[0].cells).length, rows.length, dash];
		}
		if (t) {
			var boxes = f.querySelectorAll('input'), before = count(), after, i;
			for (i = 1; i < boxes.length; i++)
				boxes[i].checked = false;
			f.dispatchEvent(new Event('change'));
			after = count();
			out = ['boxes=' + boxes.length, 'cols_before=' + before[0],
			       'cols_after=' + after[0], 'rows_before=' + before[1],
			       'rows_after=' + after[1], 'dash_rows_after=' + after[2]];
		}
		var p = document.createElement('pre');
		p.id = 'idlelab-pick';
		p.textContent = 'idlelab-pick: ' + (t ? out.join(' ') : 'no picker');
		document.body.appendChild(p);
	});
})();
