// The history report's page script (plain browser JavaScript, inlined into the page by
// history-html.ts after uPlot). It draws one uPlot chart per entry of the JSON in
// <script id="history-data">, then checks each chart's canvas: it counts the points that landed
// inside the plot and the pixels painted in the series colour, writes both on the chart's
// <figure> (data-points-drawn, data-ink), and sets document.body.dataset.chartsRendered to the
// number of charts whose every point was drawn with ink on the canvas. Tests read these
// attributes from headless Chromium's --dump-dom.
(function () {
  'use strict';
  /** Series colour per section, as [r, g, b] (the ink counter looks for it). */
  var kColours = { ratio: [31, 95, 191], fuzz: [22, 130, 70], detect: [176, 80, 20] };
  /** The margin line and survivor marks. */
  var kAlarm = 'rgb(200, 30, 30)';
  var kStep = 'rgb(110, 110, 110)';
  /** Chart size in CSS pixels. */
  var kWidth = 560;
  var kHeight = 260;
  /** A pixel counts as ink when its RGB distance (sum of channel differences) is below this. */
  var kInkDistanceMax = 60;
  /** At most this many commit labels on an axis; more would overlap. */
  var kAxisLabelsMax = 6;

  var body = document.body;
  var data = JSON.parse(document.getElementById('history-data').textContent);
  var commits = data.commits;
  var xs = commits.map(function (_, i) { return i; });
  var labels = commits.map(function (c) { return c.short + (c.dirty ? '*' : '') + (c.mode === 'full' ? ' full' : ''); });
  var labelStep = Math.max(1, Math.ceil(commits.length / kAxisLabelsMax));

  function rgb(c, alpha) {
    return alpha === undefined ? 'rgb(' + c.join(',') + ')' : 'rgba(' + c.join(',') + ',' + alpha + ')';
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

  // Interval whiskers, the reference line and survivor marks, drawn over the series.
  function drawExtras(u, spec, colour) {
    var ctx = u.ctx;
    var b = u.bbox;
    ctx.save();
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
        var y = u.valToPos(v, 'y', true);
        var s = 5 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(x - s, y - s); ctx.lineTo(x + s, y + s);
        ctx.moveTo(x - s, y + s); ctx.lineTo(x + s, y - s);
        ctx.stroke();
      });
    }
    // Where the way of measuring changed: a grey dashed line before the first record measured the new way.
    ctx.strokeStyle = kStep;
    ctx.fillStyle = kStep;
    ctx.lineWidth = 1 * devicePixelRatio;
    ctx.setLineDash([3 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.font = 10 * devicePixelRatio + 'px sans-serif';
    ctx.textAlign = 'left';
    var stepsDrawn = 0;
    // rowEnds[r]: where the last label in text row r ends; a label takes the first row it fits.
    var rowEnds = [];
    var gap = 3 * devicePixelRatio;
    data.steps.forEach(function (step) {
      var x = u.valToPos(step.index - 0.5, 'x', true);
      if (x < b.left || x > b.left + b.width) return;
      ctx.beginPath();
      ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height);
      ctx.stroke();
      // The label goes right of the line, or left of it where it would run past the plot.
      var w = ctx.measureText(step.label).width;
      var left = x + gap + w <= b.left + b.width ? x + gap : x - gap - w;
      var row = 0;
      while (rowEnds[row] !== undefined && rowEnds[row] + gap > left) row++;
      rowEnds[row] = left + w;
      ctx.fillText(step.label, left, b.top + (10 + 12 * row) * devicePixelRatio);
      stepsDrawn++;
    });
    ctx.restore();
    return stepsDrawn;
  }

  function yRange(spec) {
    return function (u, min, max) {
      if (spec.group === 'ratio') {
        var lo = Math.min(min === null ? 1 : min, 1);
        var hi = Math.max(max === null ? 1 : max, spec.reference.value);
        var pad = (hi - lo) * 0.08 || 0.05;
        return [lo - pad, hi + pad];
      }
      var top = Math.max(max === null ? 0 : max, 1);
      spec.survived && spec.survived.forEach(function (v) { if (v !== null && v > top) top = v; });
      return [0, top * 1.12];
    };
  }

  function options(spec, colour, onDrawn) {
    var series = [
      { label: 'commit', value: function (u, i) { return i === null ? '—' : labels[i] + ' (' + commits[i].mode + ', a child pair per ' + commits[i].isolation + (commits[i].layout === null ? '' : ', ' + commits[i].layout) + ', ' + commits[i].date.slice(0, 10) + ')'; } },
      { label: spec.yLabel, stroke: rgb(colour), width: 2, spanGaps: true, points: { show: true, size: 8, fill: rgb(colour), stroke: rgb(colour) } },
    ];
    if (spec.low !== null) {
      series.push({ label: 'CI low', stroke: rgb(colour, 0.3), width: 1, dash: [4, 4], spanGaps: true, points: { show: false } });
      series.push({ label: 'CI high', stroke: rgb(colour, 0.3), width: 1, dash: [4, 4], spanGaps: true, points: { show: false } });
    }
    return {
      title: spec.title,
      width: kWidth,
      height: kHeight,
      scales: { x: { time: false, range: function () { return [-0.5, commits.length - 0.5]; } }, y: { range: yRange(spec) } },
      axes: [
        { label: 'commit', splits: function () { return xs.filter(function (i) { return i % labelStep === 0; }); }, values: function (u, splits) { return splits.map(function (i) { return labels[i] === undefined ? '' : labels[i]; }); } },
        { label: spec.yLabel, size: 60 },
      ],
      series: series,
      bands: spec.low !== null ? [{ series: [3, 2], fill: rgb(colour, 0.12) }] : [],
      hooks: {
        draw: [function (u) {
          onDrawn(u, drawExtras(u, spec, colour));
        }],
      },
    };
  }

  var rendered = 0;
  try {
    data.charts.forEach(function (spec) {
      var colour = kColours[spec.group];
      var figure = document.createElement('figure');
      figure.className = 'chart';
      figure.id = spec.id;
      figure.dataset.metric = spec.metric;
      figure.dataset.points = String(spec.points);
      document.getElementById('charts-' + spec.group).appendChild(figure);
      var counted = false;
      var columns = [xs, spec.values];
      if (spec.low !== null) columns.push(spec.low, spec.high);
      new uPlot(options(spec, colour, function (u, stepsDrawn) {
        var drawn = pointsInside(u, spec.values);
        var ink = inkOf(u, colour);
        figure.dataset.pointsDrawn = String(drawn);
        figure.dataset.ink = String(ink);
        figure.dataset.stepsDrawn = String(stepsDrawn);
        if (!counted && drawn === spec.points && (spec.points === 0 || ink > 0)) {
          counted = true;
          rendered++;
          body.dataset.chartsRendered = String(rendered);
        }
      }), columns, figure);
    });
  } catch (error) {
    body.dataset.chartsError = String(error && error.stack || error);
  }
  body.dataset.chartsExpected = String(data.charts.length);
  if (body.dataset.chartsRendered === undefined) body.dataset.chartsRendered = '0';
})();
