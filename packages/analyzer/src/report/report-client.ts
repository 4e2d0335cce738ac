/**
 * The report page's own CSS and browser script (plain ES2017, no modules). It reads the JSON in
 * #report-data and draws with the inlined Apache ECharts. When done it sets
 * `document.body.dataset.ready = "1"` (the headless-browser test waits for it).
 */

export const REPORT_CSS = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #fff; --head: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1400px; padding: 16px 24px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 20px; margin: 8px 0 4px; }
h2 { font-size: 16px; margin: 28px 0 6px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.note, footer, #overview { color: var(--muted); margin: 2px 0 8px; }
.chart { width: 100%; height: 480px; }
.chart.short { height: 320px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: var(--head); position: sticky; top: 0; }
td.n, th.n { text-align: right; }
td.path { max-width: 560px; overflow: hidden; text-overflow: ellipsis; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0; color: var(--muted); }
.legend i { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
footer { margin-top: 32px; font-size: 12px; }
`;

export const REPORT_CLIENT = `
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var S = D.summary;

  function fixed(x) { var a = Math.abs(x); return x.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2).replace(/\\.0+$|(\\.\\d*?)0+$/, '$1'); }
  function dur(us) {
    var a = Math.abs(us);
    if (a < 1000) return fixed(us) + ' µs';
    if (a < 1e6) return fixed(us / 1e3) + ' ms';
    if (a < 60e6) return fixed(us / 1e6) + ' s';
    if (a < 3600e6) return fixed(us / 60e6) + ' min';
    return fixed(us / 3600e6) + ' h';
  }
  function bytes(b) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (Math.abs(b) >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return i === 0 ? b + ' B' : fixed(b) + ' ' + u[i];
  }
  function count(n) { return Math.round(n).toLocaleString('en-US'); }
  function pct(a, b) { return b ? (100 * a / b).toFixed(1) + '%' : '–'; }
  function shortPath(p) { p = String(p); return p.length > 72 ? '…' + p.slice(p.length - 71) : p; }
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; }); }

  var BASE = { POSIX: '#e45756', STDIO: '#ff9d98', compute: '#4c78a8', data: '#72b7b2', dataloader: '#54a24b', checkpoint: '#f58518',
    comm: '#b279a2', device: '#eeca3b', pipeline: '#9d755d', other: '#bab0ac', dynamo: '#8e6c8a', PP: '#79706e', dftracer: '#cccccc' };
  var EXTRA = ['#17becf', '#bcbd22', '#7f7f7f', '#8c564b', '#e377c2', '#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#d62728'];
  function color(cat) {
    if (BASE[cat]) return BASE[cat];
    var h = 0; for (var i = 0; i < cat.length; i++) h = (h * 31 + cat.charCodeAt(i)) >>> 0;
    return EXTRA[h % EXTRA.length];
  }

  var procTime = S.per_process.reduce(function (a, p) { return a + p.wall_us; }, 0);
  document.getElementById('overview').textContent =
    count(S.events) + ' events from ' + S.traces.length + ' trace file' + (S.traces.length === 1 ? '' : 's') + ', ' + S.processes + ' process' + (S.processes === 1 ? '' : 'es') +
    ' · wall ' + dur(S.wall_us) + (S.per_process.length > 1 ? ' · process time ' + dur(procTime) + ' (the walls of the processes summed: the shares are of it)' : '') + ' · I/O ' + dur(S.totals.io_us) + ' (' + pct(S.totals.io_us, procTime) + ')' +
    ' · compute ' + dur(S.totals.compute_us) + ' (' + pct(S.totals.compute_us, procTime) + ')' +
    ' · both at once ' + dur(S.totals.overlap_us) + ' · data wait ' + dur(S.phases.totals.wait_us) + ' (' + pct(S.phases.totals.wait_us, procTime) + ')' +
    ' · other ' + dur(S.totals.other_us) + ' (' + pct(S.totals.other_us, procTime) + ')' + ' · read ' + bytes(S.bytes_read) + ' · written ' + bytes(S.bytes_written) +
    (S.phases.totals.verdict ? ' · ' + S.phases.totals.verdict : '') +
    (S.device ? ' · device busy ' + dur(S.device.busy_us) + ' (' + pct(S.device.busy_us, procTime) + '), top kernels ' + S.device.kernels.slice(0, 3).map(function (k) { return k.name + ' ' + dur(k.device_us); }).join(', ') : '');

  var charts = [];
  var pending = 0;
  function done() { if (--pending === 0) document.body.dataset.ready = '1'; }
  function make(el, option, renderer) {
    var chart = echarts.init(el, null, { renderer: renderer || 'canvas' });
    pending++;
    chart.on('finished', function once() { chart.off('finished', once); done(); });
    chart.setOption(option);
    charts.push(chart);
    return chart;
  }
  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });

  // ---- timeline ------------------------------------------------------------------------------
  var rowsTotal = 0;
  D.tracks.forEach(function (t) { rowsTotal = Math.max(rowsTotal, t.row + t.rows); });
  var labels = new Array(rowsTotal).fill('');
  D.tracks.forEach(function (t) { labels[t.row] = t.label; });
  var tl = document.getElementById('timeline');
  tl.dataset.tracks = String(D.tracks.length);
  var visibleRows = Math.min(rowsTotal, 40);
  tl.style.height = Math.max(260, visibleRows * 20 + 120) + 'px';
  var shown = D.slices.length / 6;
  document.getElementById('timeline-note').textContent =
    D.tracks.length + ' track' + (D.tracks.length === 1 ? '' : 's') + ' (pid · thread); ' +
    (shown < D.totalSlices ? 'showing the ' + count(shown) + ' longest of ' + count(D.totalSlices) + ' slices' : count(shown) + ' slices') +
    '. Scroll or drag the slider to zoom; nested calls stack downwards, overlapping async calls get extra rows.';
  var data = new Array(shown);
  for (var i = 0; i < shown; i++) {
    var o = i * 6;
    data[i] = [D.slices[o], D.slices[o + 1], D.slices[o + 2], D.slices[o + 3], D.slices[o + 4], D.slices[o + 5]];
  }
  var cats = D.cats;
  var legend = document.createElement('div');
  legend.className = 'legend';
  legend.innerHTML = cats.map(function (c) { return '<span><i style="background:' + color(c) + '"></i>' + esc(c) + '</span>'; }).join('');
  tl.parentNode.insertBefore(legend, tl);
  function renderSlice(params, api) {
    var row = api.value(0), s = api.value(1), e = api.value(2);
    var p0 = api.coord([s, row]), p1 = api.coord([e, row]);
    var h = api.size([0, 1])[1] * 0.86;
    var cs = params.coordSys;
    var shape = echarts.graphic.clipRectByRect(
      { x: p0[0], y: p0[1] - h / 2, width: Math.max(p1[0] - p0[0], 0.8), height: h },
      { x: cs.x, y: cs.y, width: cs.width, height: cs.height });
    return shape && { type: 'rect', shape: shape, style: { fill: color(cats[api.value(3)]) } };
  }
  var zoom = [
    { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' },
    { type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', height: 18, bottom: 10, labelFormatter: function (v) { return dur(v); } }
  ];
  if (rowsTotal > visibleRows) zoom.push({ type: 'slider', yAxisIndex: 0, filterMode: 'weakFilter', right: 4, width: 14, startValue: 0, endValue: visibleRows - 1, zoomLock: true, showDetail: false });
  var timeline = make(tl, {
    animation: false,
    tooltip: {
      confine: true,
      formatter: function (p) {
        var v = p.value, f = v[5] >= 0 ? '<br>' + esc(D.files[v[5]]) : '';
        return '<b>' + esc(D.names[v[4]]) + '</b> <span style="color:' + color(cats[v[3]]) + '">' + esc(cats[v[3]]) + '</span><br>' +
          dur(v[2] - v[1]) + ' at +' + dur(v[1]) + f;
      }
    },
    grid: { left: 270, right: rowsTotal > visibleRows ? 34 : 20, top: 10, bottom: 56 },
    xAxis: { type: 'value', min: 0, max: Math.max(1, S.wall_us), axisLabel: { formatter: function (v) { return dur(v); } }, splitLine: { show: true, lineStyle: { color: '#eee' } } },
    yAxis: { type: 'category', data: labels, inverse: true, axisTick: { show: false }, axisLabel: { interval: 0, width: 260, overflow: 'truncate', fontSize: 11 }, splitLine: { show: false } },
    dataZoom: zoom,
    series: [{ type: 'custom', renderItem: renderSlice, encode: { x: [1, 2], y: 0 }, data: data, progressive: 20000, clip: true }]
  });
  // the counter charts (report-counters-client.ts), on the timeline's time axis
  if (window.dftracerCounterCharts) window.dftracerCounterCharts({ data: D.counters, timeline: timeline, make: make, left: 270,
    right: rowsTotal > visibleRows ? 34 : 20, max: Math.max(1, S.wall_us), dur: dur, bytes: bytes, count: count, fixed: fixed });

  // ---- over time ----------------------------------------------------------------------------
  var xs = D.io.map(function (_, b) { return b * D.binUs; });
  function series(values, scale) { return values.map(function (v, b) { return [xs[b], v * scale]; }); }
  make(document.getElementById('overtime'), {
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: function (v) { return typeof v === 'number' ? fixed(v) : v; } },
    legend: { top: 0 },
    grid: { left: 60, right: 70, top: 34, bottom: 40 },
    xAxis: { type: 'value', min: 0, max: Math.max(1, D.binUs * D.io.length), axisLabel: { formatter: function (v) { return dur(v); } } },
    yAxis: [
      { type: 'value', name: 'busy threads', nameTextStyle: { align: 'left' } },
      { type: 'value', name: 'MiB/s', position: 'right', splitLine: { show: false } }
    ],
    dataZoom: [{ type: 'inside' }],
    series: [
      { name: 'I/O', type: 'line', step: 'start', symbol: 'none', areaStyle: { opacity: 0.35 }, color: BASE.POSIX, data: series(D.io, 1 / D.binUs) },
      { name: 'compute', type: 'line', step: 'start', symbol: 'none', areaStyle: { opacity: 0.35 }, color: BASE.compute, data: series(D.compute, 1 / D.binUs) },
      { name: 'read MiB/s', type: 'line', yAxisIndex: 1, symbol: 'none', color: '#54a24b', lineStyle: { width: 1 }, data: series(D.readBytes, 1e6 / D.binUs / 1048576) },
      { name: 'write MiB/s', type: 'line', yAxisIndex: 1, symbol: 'none', color: '#f58518', lineStyle: { width: 1 }, data: series(D.writeBytes, 1e6 / D.binUs / 1048576) }
    ]
  });

  // ---- bytes by file ------------------------------------------------------------------------
  var topFiles = S.files.slice(0, 20).reverse();
  var fc = document.getElementById('files-chart');
  fc.style.height = Math.max(160, topFiles.length * 22 + 70) + 'px';
  make(fc, {
    animation: false,
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: function (v) { return bytes(v); } },
    legend: { top: 0 },
    grid: { left: 300, right: 30, top: 30, bottom: 30 },
    xAxis: { type: 'value', axisLabel: { formatter: function (v) { return bytes(v); } } },
    yAxis: { type: 'category', data: topFiles.map(function (f) { return f.file; }), axisLabel: { width: 290, overflow: 'truncate', fontSize: 11 } },
    series: [
      { name: 'read', type: 'bar', stack: 'b', color: '#54a24b', data: topFiles.map(function (f) { return f.bytes_read; }) },
      { name: 'written', type: 'bar', stack: 'b', color: '#f58518', data: topFiles.map(function (f) { return f.bytes_written; }) }
    ]
  });

  // ---- tables -------------------------------------------------------------------------------
  function table(id, head, rows, numeric) {
    var h = '<table><thead><tr>' + head.map(function (c, i) { return '<th' + (numeric[i] ? ' class="n"' : '') + '>' + esc(c) + '</th>'; }).join('') + '</tr></thead><tbody>';
    h += rows.map(function (r) {
      return '<tr>' + r.map(function (c, i) { return '<td' + (numeric[i] === 1 ? ' class="n"' : numeric[i] === 2 ? ' class="path" title="' + esc(c) + '"' : '') + '>' + esc(numeric[i] === 2 ? shortPath(c) : c) + '</td>'; }).join('') + '</tr>';
    }).join('');
    document.getElementById(id).innerHTML = h + '</tbody></table>';
  }
  table('processes', ['pid', 'name', 'host', 'threads', 'lanes', 'events', 'wall', 'I/O', 'compute', 'both', 'I/O only', 'other', 'idle', 'read', 'written'],
    S.per_process.map(function (p) { return [p.pid, p.name || '', p.host || '', p.threads, p.lanes, count(p.events), dur(p.wall_us), dur(p.io_us), dur(p.compute_us), dur(p.overlap_us), dur(p.io_only_us), dur(p.other_us), dur(p.idle_us), bytes(p.bytes_read), bytes(p.bytes_written)]; }),
    [1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  table('names', ['cat', 'name', 'count', 'busy', 'self', 'sum of spans', 'mean'].concat(S.percentiles === 'approximate' ? ['p50 ≈', 'p99 ≈'] : ['p50', 'p99'], ['max']),
    S.by_name.slice().sort(function (a, b) { return b.self_us - a.self_us; }).slice(0, 50).map(function (r) { return [r.cat, r.name, count(r.count), dur(r.busy_us), dur(r.self_us), dur(r.total_us), dur(r.mean_us), dur(r.p50_us), dur(r.p99_us), dur(r.max_us)]; })
      .concat(S.by_name.length > 50 ? [['', (S.by_name.length - 50) + ' more names kept (--json of summary for all)', '', '', '', '', '', '', '', '']] : [])
      .concat(S.names_left_out && S.names_left_out.names > 0 ? [['', S.names_left_out.names + ' other names (not kept one by one)', count(S.names_left_out.count), '', '', dur(S.names_left_out.total_us), '', '', '', '']] : []),
    [0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
  function phaseRows(list) {
    return list.map(function (e) { return [e.label, e.pid, dur(e.wall_us), dur(e.compute_us), dur(e.wait_us), dur(e.io_only_us), dur(e.other_us), dur(e.idle_us), dur(e.io_us), bytes(e.bytes_read), e.verdict]; });
  }
  var PH = ['', 'pid', 'wall', 'compute', 'data wait', 'I/O only', 'other', 'idle', 'I/O (all)', 'read', 'verdict'];
  var PN = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0];
  table('epochs', PH, phaseRows(S.phases.epochs), PN);
  table('slow-steps', ['step', 'pid', 'wall', 'what made it slow'],
    S.phases.slowest_steps.map(function (s) { return [s.label, s.pid, dur(s.wall_us), s.reason]; }), [0, 1, 1, 0]);
  table('steps', PH, phaseRows(S.phases.steps.slice(0, 500)), PN);
  table('dirs', ['directory', 'files', 'ops', 'read', 'written', 'I/O busy', 'sum of calls', 'bytes/file p50', 'max'],
    S.file_groups.slice(0, 50).map(function (d) { return [d.dir, count(d.files), count(d.ops), bytes(d.bytes_read), bytes(d.bytes_written), dur(d.busy_us), dur(d.io_us), bytes(d.file_bytes_p50), bytes(d.file_bytes_max)]; }),
    [2, 1, 1, 1, 1, 1, 1, 1, 1]);
  if (D.comparison) {
    var C = D.comparison;
    function val(u, v) { return u === 'us' ? dur(v) : u === 'bytes' ? bytes(v) : count(Math.round(v)); }
    function sgn(u, v) { return (v > 0 ? '+' : v < 0 ? '−' : '') + val(u, Math.abs(v)); }
    table('comparison', ['', 'this run', 'other run', 'change', ''],
      C.figures.map(function (f) {
        // a view one run lacks (no epochs, no steps) is said, never a change against zero
        if (f.missing && f.missing.length) return [f.figure, f.base === null ? '–' : val(f.unit, f.base), f.variant === null ? '–' : val(f.unit, f.variant), 'no ' + f.view + ' in ' + f.missing.map(function (m) { return m === 'base' ? 'this run' : 'the other run'; }).join(' and '), ''];
        return [f.figure, val(f.unit, f.base), val(f.unit, f.variant), sgn(f.unit, f.delta), f.ratio === null ? '' : (f.ratio >= 0 ? '+' : '−') + Math.abs(100 * f.ratio).toFixed(0) + '%'];
      }), [0, 1, 1, 1, 1]);
    table('comparison-names', ['cat', 'name', 'this run', 'other run', 'change'],
      C.names.map(function (n) { return [n.cat, n.name, dur(n.base_self_us), dur(n.variant_self_us), sgn('us', n.delta_us)]; })
        .concat(C.other_names && (C.other_names.base.names > 0 || C.other_names.variant.names > 0) ? [['', 'other names (unchanged, not listed, or below the top names of both runs): ' +
          [['this run', C.other_names.base], ['other run', C.other_names.variant]].map(function (o) { return o[0] + ' ' + count(o[1].names) + ' names, ' + count(o[1].count) + ' calls, sum of spans ' + dur(o[1].total_us); }).join('; '), '', '', '']] : []),
      [0, 0, 1, 1, 1]);
  }
  table('files', ['file', 'ops', 'read', 'read bandwidth', 'written', 'write bandwidth', 'I/O time'],
    S.files.slice(0, 50).map(function (f) { return [f.file, count(f.ops), bytes(f.bytes_read), f.read_bandwidth ? bytes(f.read_bandwidth) + '/s' : '–', bytes(f.bytes_written), f.write_bandwidth ? bytes(f.write_bandwidth) + '/s' : '–', dur(f.io_us)]; }),
    [2, 1, 1, 1, 1, 1, 1]);
  table('top', ['cat', 'name', 'pid', 'tid', 'duration', 'at', 'file'],
    S.top_events.map(function (e) { return [e.cat, e.name, e.pid, e.tid, dur(e.dur), '+' + dur(e.ts - S.start_us), e.file || '']; }),
    [0, 0, 1, 1, 1, 1, 2]);
})();
`;
