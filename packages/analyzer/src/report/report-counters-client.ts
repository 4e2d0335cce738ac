/**
 * The report page's counter charts, in the browser (plain ES2017, no modules): one small line
 * chart per counter group (`ReportData.counters`) under the timeline, on its time axis (same
 * left/right edges and range) and zoomed with it. Drawn as SVG. The report's own script calls
 * `window.dftracerCounterCharts(api)` once the timeline exists.
 */
import type { CounterCharts } from './report-counters.js';

/** The section's markup, placed right under the timeline. */
export function counterSectionHtml(counters: CounterCharts): string {
  if (counters.charts.length === 0) return '';
  return '<p class="note" id="counters-note"></p><div id="counters" class="counters"></div>';
}

export const COUNTERS_CSS = `
.counters { width: 100%; margin-top: 4px; }
`;

export const COUNTERS_CLIENT = `
(function () {
  'use strict';
  var PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#b279a2', '#e45756', '#72b7b2'];
  var H = 64, GAP = 30, TOP = 6, BOTTOM = 26;

  // api: { data, timeline, make, left, right, max, dur, bytes, count, fixed }
  window.dftracerCounterCharts = function (api) {
    var C = api.data, el = document.getElementById('counters');
    if (!el || !C || C.charts.length === 0) return null;
    var fmt = {
      bytes: api.bytes,
      pct: function (v) { return api.fixed(v) + ' %'; },
      us: api.dur,
      count: api.count
    };
    var grids = [], xAxes = [], yAxes = [], titles = [], legends = [], series = [], units = [];
    var last = C.charts.length - 1;
    C.charts.forEach(function (c, k) {
      var top = TOP + k * (H + GAP);
      grids.push({ left: api.left, right: api.right, top: top, height: H });
      xAxes.push({ type: 'value', gridIndex: k, min: 0, max: api.max, axisTick: { show: k === last },
        axisLabel: { show: k === last, formatter: function (v) { return api.dur(v); } }, splitLine: { show: true, lineStyle: { color: '#eee' } } });
      yAxes.push({ type: 'value', gridIndex: k, min: 0, splitNumber: 2, axisLabel: { fontSize: 10, formatter: fmt[c.unit] }, splitLine: { lineStyle: { color: '#eee' } } });
      titles.push({ text: c.title, left: 8, top: top - 2, textStyle: { fontSize: 12, fontWeight: 600, color: '#1f2328' } });
      legends.push({ left: 8, top: top + 16, orient: 'vertical', itemWidth: 14, itemHeight: 8, itemGap: 5, textStyle: { fontSize: 11, color: '#59636e' },
        data: c.series.map(function (s) { return s.name; }) });
      c.series.forEach(function (s, j) {
        var pts = new Array(s.points.length / 2);
        for (var i = 0; i < pts.length; i++) pts[i] = [s.points[2 * i], s.points[2 * i + 1]];
        units.push(c.unit);
        series.push({ id: c.id + ':' + s.cat + '.' + s.counter + '.' + s.series + ':' + s.pid, name: s.name, type: 'line', xAxisIndex: k, yAxisIndex: k,
          symbol: 'none', showSymbol: false, color: PALETTE[j % PALETTE.length], lineStyle: { width: 1.5 }, data: pts });
      });
    });
    el.style.height = (TOP + C.charts.length * (H + GAP) - GAP + BOTTOM) + 'px';
    el.dataset.charts = C.charts.map(function (c) { return c.id; }).join(' ');
    var note = document.getElementById('counters-note');
    if (note) note.textContent = 'Counter tracks (memory, CPU, event loop, GC, tfjs tensors) on the timeline\\'s time axis; they zoom with it.' +
      (C.reducedToUs > 0 ? ' Samples reduced to their maximum per ' + api.dur(C.reducedToUs) + '.' : '');
    var xs = C.charts.map(function (_, k) { return k; });
    var chart = api.make(el, {
      animation: false,
      title: titles,
      legend: legends,
      grid: grids,
      xAxis: xAxes,
      yAxis: yAxes,
      axisPointer: { link: [{ xAxisIndex: 'all' }] },
      tooltip: {
        trigger: 'axis', confine: true,
        formatter: function (ps) {
          if (!ps.length) return '';
          return '+' + api.dur(ps[0].value[0]) + ps.map(function (p) {
            return '<br>' + p.marker + p.seriesName + ' <b>' + fmt[units[p.seriesIndex]](p.value[1]) + '</b>';
          }).join('');
        }
      },
      dataZoom: [{ type: 'inside', xAxisIndex: xs, filterMode: 'none' }],
      series: series
    }, 'svg');

    // the timeline's zoom moves these charts, and theirs the timeline's
    var syncing = false;
    function follow(from, to) {
      from.on('datazoom', function () {
        if (syncing) return;
        var z = from.getOption().dataZoom[0];
        syncing = true;
        try { to.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, start: z.start, end: z.end }); } finally { syncing = false; }
      });
    }
    follow(api.timeline, chart);
    follow(chart, api.timeline);
    return chart;
  };
})();
`;
