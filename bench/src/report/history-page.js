// The history report's page script (plain browser JavaScript, inlined into the page by
// history-html.ts after uPlot). It draws the summary's verdict-count chart first, then one uPlot
// chart per entry of the JSON in <script id="history-data">, then checks each chart's canvas: it
// counts the main series' points that landed inside the plot and the pixels painted in its colour,
// writes both on the chart's <figure> (data-points-drawn, data-ink, with data-y-min/max and
// data-x-labels), and sets document.body.dataset.chartsRendered to the number of charts whose every
// point was drawn with ink on the canvas. Tests read these attributes from headless Chromium's
// --dump-dom.
(function () {
  'use strict';
  /** Main series colour per section, as [r, g, b] (the ink counter looks for it). */
  var kColours = { ratio: [31, 95, 191], fuzz: [22, 130, 70], detect: [176, 80, 20] };
  /** The summary chart's series. */
  var kVerdicts = [
    { key: 'pass', colour: [22, 121, 74] },
    { key: 'fail', colour: [200, 30, 30] },
    { key: 'inconclusive', colour: [170, 125, 0] },
  ];
  /** Marks of quick runs and of records with uncommitted changes: apart from the main series. */
  var kQuick = 'rgb(128, 128, 128)';
  var kDirty = 'rgb(235, 140, 20)';
  /** The margin line and survivor marks. */
  var kAlarm = 'rgb(200, 30, 30)';
  var kStep = 'rgb(110, 110, 110)';
  /** Chart size in CSS pixels. */
  var kWidth = 560;
  var kHeight = 300;
  /** A pixel counts as ink when its RGB distance (sum of channel differences) is below this. */
  var kInkDistanceMax = 60;
  /** At most this many commit labels on an axis: rotated, a short sha needs about 40 px. */
  var kAxisLabelsMax = 12;
  /**
   * Commit labels are drawn at this angle (degrees), so neighbours do not run together; uPlot
   * right-aligns a label at a positive angle, so each ends at its tick and the newest stays inside.
   */
  var kLabelRotate = 45;
  /** Room under the plot for the rotated labels (px). */
  var kAxisSize = 72;

  var body = document.body;
  var data = JSON.parse(document.getElementById('history-data').textContent);
  var commits = data.commits;
  var labels = commits.map(function (c) { return c.short + (c.dirty ? '*' : '') + (c.mode === 'quick' ? ' q' : ''); });

  function rgb(c, alpha) {
    return alpha === undefined ? 'rgb(' + c.join(',') + ')' : 'rgba(' + c.join(',') + ',' + alpha + ')';
  }

  function describe(i) {
    var c = commits[i];
    if (c === undefined) return '—';
    return labels[i] + ' (' + c.mode + (c.dirty ? ', uncommitted changes' : '') + ', a child pair per ' + c.isolation + (c.layout === null ? '' : ', ' + c.layout) + ', ' + c.interval + ' intervals, ' + c.date.slice(0, 10) + ')';
  }

  function inkOf(u, colour) {
    var canvas = u.ctx.canvas;
    var pixels = u.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    var ink = 0;
    for (var p = 0; p < pixels.length; p += 4) {
      var d = Math.abs(pixels[p] - colour[0]) + Math.abs(pixels[p + 1] - colour[1]) + Math.abs(pixels[p + 2] - colour[2]);
      if (pixels[p + 3] > 200 && d < kInkDistanceMax) ink++;
    }
    return ink;
  }

  function pointsInside(u, values) {
    var drawn = 0;
    var b = u.bbox;
    values.forEach(function (v, i) {
      if (v === null) return;
      var x = u.valToPos(i, 'x', true);
      var y = u.valToPos(v, 'y', true);
      if (x >= b.left && x <= b.left + b.width && y >= b.top && y <= b.top + b.height) drawn++;
    });
    return drawn;
  }

  /** An x axis of `n` positions labelled by `labelOf(i)`, thinned to kAxisLabelsMax and rotated. */
  function xAxis(n, labelOf, shown) {
    var step = Math.max(1, Math.ceil(n / kAxisLabelsMax));
    return {
      label: 'commit',
      size: kAxisSize,
      rotate: kLabelRotate,
      splits: function () {
        var out = [];
        // Always label the newest position: the one a reader looks for first.
        for (var i = (n - 1) % step; i < n; i += step) out.push(i);
        shown.count = out.length;
        return out;
      },
      values: function (u, splits) { return splits.map(function (i) { var l = labelOf(i); return l === undefined ? '' : l; }); },
    };
  }

  /** A series drawn as marks only, no line: quick runs and records with uncommitted changes. */
  function marks(label, stroke, fill) {
    return { label: label, stroke: stroke, width: 2, paths: function () { return null; }, points: { show: true, size: 8, width: 2, stroke: stroke, fill: fill } };
  }

  // Interval whiskers, the reference line, survivor marks and method steps, drawn over the series.
  function drawExtras(u, spec, colour) {
    var ctx = u.ctx;
    var b = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(b.left, b.top, b.width, b.height);
    ctx.clip();
    ctx.setLineDash([]);
    if (spec.low !== null && spec.high !== null) {
      ctx.strokeStyle = rgb(colour, 0.45);
      ctx.lineWidth = 2 * devicePixelRatio;
      spec.low.forEach(function (lo, i) {
        var hi = spec.high[i];
        if (lo === null || hi === null) return;
        var x = u.valToPos(i, 'x', true);
        var w = 5 * devicePixelRatio;
        var y0 = u.valToPos(lo, 'y', true);
        var y1 = u.valToPos(hi, 'y', true);
        ctx.beginPath();
        ctx.moveTo(x, y0); ctx.lineTo(x, y1);
        ctx.moveTo(x - w, y0); ctx.lineTo(x + w, y0);
        ctx.moveTo(x - w, y1); ctx.lineTo(x + w, y1);
        ctx.stroke();
      });
    }
    if (spec.reference !== null) {
      var y = u.valToPos(spec.reference.value, 'y', true);
      ctx.strokeStyle = kAlarm;
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
      ctx.beginPath();
      ctx.moveTo(b.left, y); ctx.lineTo(b.left + b.width, y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = kAlarm;
      ctx.font = 11 * devicePixelRatio + 'px sans-serif';
      ctx.textAlign = 'right';
      ctx.fillText(spec.reference.label, b.left + b.width - 4 * devicePixelRatio, y - 4 * devicePixelRatio);
    }
    if (spec.survived !== null) {
      ctx.strokeStyle = kAlarm;
      ctx.lineWidth = 2 * devicePixelRatio;
      spec.survived.forEach(function (v, i) {
        if (v === null) return;
        var x = u.valToPos(i, 'x', true);
        var yv = u.valToPos(v, 'y', true);
        var s = 5 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(x - s, yv - s); ctx.lineTo(x + s, yv + s);
        ctx.moveTo(x - s, yv + s); ctx.lineTo(x + s, yv - s);
        ctx.stroke();
      });
    }
    // Where the way of measuring changed: a grey dashed line before the first record measured the
    // new way, tagged with its number in the list under the section heading (the labels themselves
    // would run into each other where changes come close together).
    ctx.strokeStyle = kStep;
    ctx.fillStyle = kStep;
    ctx.lineWidth = 1 * devicePixelRatio;
    ctx.setLineDash([3 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.font = 10 * devicePixelRatio + 'px sans-serif';
    ctx.textAlign = 'left';
    var stepsDrawn = 0;
    // rowEnds[r]: where the last tag in text row r ends; a tag takes the first row it fits.
    var rowEnds = [];
    var gap = 2 * devicePixelRatio;
    data.steps.forEach(function (step, n) {
      var x = u.valToPos(step.index - 0.5, 'x', true);
      if (x < b.left || x > b.left + b.width) return;
      ctx.beginPath();
      ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height);
      ctx.stroke();
      var tag = String(n + 1);
      var w = ctx.measureText(tag).width;
      var left = x + gap;
      var row = 0;
      while (rowEnds[row] !== undefined && rowEnds[row] + gap > left) row++;
      rowEnds[row] = left + w;
      ctx.fillText(tag, left, b.top + (10 + 11 * row) * devicePixelRatio);
      stepsDrawn++;
    });
    ctx.restore();
    return stepsDrawn;
  }

  function options(spec, colour, shown, onDrawn) {
    var series = [
      { label: 'commit', value: function (u, i) { return i === null ? '—' : describe(i); } },
      { label: spec.yLabel + (spec.group === 'ratio' ? ' (full runs)' : ''), stroke: rgb(colour), width: 2, spanGaps: true, points: { show: true, size: 8, fill: rgb(colour), stroke: rgb(colour) } },
    ];
    var bands = [];
    if (spec.low !== null) {
      series.push({ label: 'CI low', stroke: rgb(colour, 0.3), width: 1, dash: [4, 4], spanGaps: true, points: { show: false } });
      series.push({ label: 'CI high', stroke: rgb(colour, 0.3), width: 1, dash: [4, 4], spanGaps: true, points: { show: false } });
      bands.push({ series: [3, 2], fill: rgb(colour, 0.12) });
    }
    if (spec.quick !== null) series.push(marks('quick runs', kQuick, kQuick));
    series.push(marks('uncommitted changes', kDirty, 'rgb(255, 255, 255)'));
    return {
      title: spec.title,
      width: kWidth,
      height: kHeight,
      scales: { x: { time: false, range: function () { return [-0.5, commits.length - 0.5]; } }, y: { range: function () { return [spec.yRange[0], spec.yRange[1]]; } } },
      axes: [xAxis(commits.length, function (i) { return labels[i]; }, shown), { label: spec.yLabel, size: 60 }],
      series: series,
      bands: bands,
      hooks: { draw: [function (u) { onDrawn(u, drawExtras(u, spec, colour)); }] },
    };
  }

  function figureFor(id, metric, points, parent) {
    var figure = document.createElement('figure');
    figure.className = 'chart';
    figure.id = id;
    figure.dataset.metric = metric;
    figure.dataset.points = String(points);
    document.getElementById(parent).appendChild(figure);
    return figure;
  }

  var rendered = 0;
  function record(figure, u, values, colour, points, shown, stepsDrawn) {
    var drawn = pointsInside(u, values);
    var ink = inkOf(u, colour);
    figure.dataset.pointsDrawn = String(drawn);
    figure.dataset.ink = String(ink);
    figure.dataset.stepsDrawn = String(stepsDrawn);
    figure.dataset.yMin = String(u.scales.y.min);
    figure.dataset.yMax = String(u.scales.y.max);
    figure.dataset.xLabels = String(shown.count);
    if (figure.dataset.counted !== 'true' && drawn === points && (points === 0 || ink > 0)) {
      figure.dataset.counted = 'true';
      rendered++;
      body.dataset.chartsRendered = String(rendered);
    }
  }

  // The summary's chart: gated verdict counts of every full run of committed code.
  function drawVerdicts() {
    var v = data.verdicts;
    var n = v.at.length;
    var xs = v.at.map(function (_, i) { return i; });
    var shown = { count: 0 };
    var figure = figureFor('summary-verdicts', 'verdicts', n, 'charts-summary');
    var top = 1;
    kVerdicts.forEach(function (s) { v[s.key].forEach(function (c) { if (c > top) top = c; }); });
    var series = [{ label: 'full run', value: function (u, i) { return i === null ? '—' : describe(v.at[i]); } }];
    kVerdicts.forEach(function (s) { series.push({ label: s.key, stroke: rgb(s.colour), width: 2, points: { show: true, size: 7, fill: rgb(s.colour), stroke: rgb(s.colour) } }); });
    var pass = kVerdicts[0];
    new uPlot({
      title: 'Gated verdicts of each full run',
      width: kWidth,
      height: kHeight,
      scales: { x: { time: false, range: function () { return [-0.5, Math.max(n, 1) - 0.5]; } }, y: { range: function () { return [0, top * 1.12]; } } },
      axes: [xAxis(n, function (i) { return labels[v.at[i]]; }, shown), { label: 'cases', size: 50 }],
      series: series,
      hooks: { draw: [function (u) { record(figure, u, v.pass, pass.colour, n, shown, 0); }] },
    }, [xs, v.pass, v.fail, v.inconclusive], figure);
  }

  try {
    drawVerdicts();
    data.charts.forEach(function (spec) {
      var colour = kColours[spec.group];
      var figure = figureFor(spec.id, spec.metric, spec.points, 'charts-' + spec.group);
      var shown = { count: 0 };
      var xs = commits.map(function (_, i) { return i; });
      var columns = [xs, spec.values];
      if (spec.low !== null) columns.push(spec.low, spec.high);
      if (spec.quick !== null) columns.push(spec.quick);
      columns.push(spec.dirty);
      new uPlot(options(spec, colour, shown, function (u, stepsDrawn) {
        record(figure, u, spec.values, colour, spec.points, shown, stepsDrawn);
      }), columns, figure);
    });
  } catch (error) {
    body.dataset.chartsError = String(error && error.stack || error);
  }
  body.dataset.chartsExpected = String(data.charts.length + 1);
  if (body.dataset.chartsRendered === undefined) body.dataset.chartsRendered = '0';
})();
