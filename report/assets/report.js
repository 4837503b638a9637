// hindsight report page script. It reads the page's data (JSON in the
// script element of type application/json), draws the charts with the
// embedded ECharts, and wires the key picker and buttons. Strings from the
// history only ever reach the page through textContent: tooltips are built
// as DOM nodes, never as HTML.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('hindsight-data').textContent);
  var instances = {};
  var txn = data.layout || null; // the layout's data: a transactional history's timeline
  var focus = -1;             // the timeline's focused mark, -1 for none
  var txnItems = [];          // the timeline's bars, per series
  var statusNames = ['ok', 'info', 'fail', 'never completed (info)'];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  // tooltip returns an ECharts tooltip formatter for points whose fields
  // are named by dims. It returns a DOM element, which ECharts appends
  // as is (no HTML parsing).
  function tooltip(dims) {
    return function (params) {
      if (txn && params.seriesType === 'custom') { return txnTip(params); }
      var box = el('div', 'hs-tip');
      if (Array.isArray(params)) { // axis trigger: one line per series
        if (params.length && Array.isArray(params[0].value)) {
          box.appendChild(el('div', 'hs-tip-title', dims[0] + ': ' + params[0].value[0]));
        }
        params.forEach(function (p) {
          // [x, y] or, stacked, [x, top of the stack, own value]
          var v = Array.isArray(p.value) ? p.value[p.value.length > 2 ? 2 : 1] : null;
          if (v) {
            box.appendChild(el('div', null, p.seriesName + ': ' + v));
          }
        });
        return box;
      }
      if (params.componentType === 'markArea') {
        box.appendChild(el('div', 'hs-tip-title', params.name || params.seriesName));
        return box;
      }
      var d = params.data;
      if (d && Array.isArray(d.tip)) { // graph nodes and edges
        d.tip.forEach(function (line, i) { box.appendChild(el('div', i === 0 ? 'hs-tip-title' : null, line)); });
        return box;
      }
      box.appendChild(el('div', 'hs-tip-title', params.seriesName));
      var v = params.value;
      if (Array.isArray(v)) {
        for (var i = 0; i < v.length && i < dims.length; i++) {
          if (v[i] === null || v[i] === undefined || v[i] === '') { continue; }
          if (dims[i] === 'note') {
            box.appendChild(el('div', 'hs-tip-note', v[i]));
          } else {
            box.appendChild(el('div', null, dims[i] + ': ' + v[i]));
          }
        }
      }
      return box;
    };
  }

  // txnTip is the tooltip of a transaction's bar: its ops, outcome,
  // process, span, micro-ops and the anomalies it takes part in.
  function txnTip(params) {
    var d = params.data, v = d.value, box = el('div', 'hs-tip');
    box.appendChild(el('div', 'hs-tip-title', 'op ' + v[4] + (v[5] >= 0 ? ' → op ' + v[5] : ', never completed') +
      ' · ' + statusNames[v[3]]));
    box.appendChild(el('div', null, (txn.lanes[v[2]] || '') + ' · ' + txn.axis + ': ' + v[0] + ' to ' + v[1]));
    box.appendChild(el('div', 'hs-tip-mops', d.t));
    if (d.m && d.m.length) {
      box.appendChild(el('div', 'hs-tip-note', 'in ' + d.m.map(function (i) { return txn.marks[i].label; }).join(', ') +
        ': click to read it'));
    }
    return box;
  }

  // txnRender draws the bars of one custom series of the transaction
  // timeline: a rectangle from invocation to completion in the lane of
  // its process, filled by outcome, outlined in red when it takes part in
  // an anomaly, faded when another anomaly has the focus.
  function txnRender(items) {
    return function (params, api) {
      var lane = api.value(2), a = api.coord([api.value(0), lane]), b = api.coord([api.value(1), lane]);
      var h = Math.max(3, api.size([0, 1])[1] * 0.62), cs = params.coordSys;
      var rect = echarts.graphic.clipRectByRect(
        { x: a[0], y: a[1] - h / 2, width: Math.max(b[0] - a[0], 2), height: h },
        { x: cs.x, y: cs.y, width: cs.width, height: cs.height });
      if (!rect) { return null; }
      var m = items[params.dataIndex].m || [];
      var lit = focus < 0 || m.indexOf(focus) >= 0;
      return {
        type: 'rect', shape: rect,
        style: { fill: txn.colors[api.value(3)], stroke: m.length ? '#d62728' : null, lineWidth: m.length ? 2 : 0, opacity: lit ? 1 : 0.12 }
      };
    };
  }

  function draw(id, option, dims) {
    var node = document.getElementById(id);
    if (!node || !option) { return null; }
    if (txn && id === txn.id) {
      node.style.height = Math.max(260, Math.min(720, txn.lanes.length * 24 + 140)) + 'px';
      // drawn in one go: progressive rendering would show half a timeline
      txnItems = (option.series || []).map(function (s) { s.renderItem = txnRender(s.data); s.progressive = 0; return s.data; });
    }
    var chart = echarts.getInstanceByDom(node) || echarts.init(node, null, { renderer: 'canvas' });
    option.tooltip = option.tooltip || {};
    option.tooltip.formatter = tooltip(dims || []);
    option.tooltip.confine = true;
    chart.setOption(option, true);
    instances[id] = chart;
    return chart;
  }

  data.charts.forEach(function (c) { draw(c.id, c.option, c.dims); });

  var tl = data.timeline;
  var picker = document.getElementById('key-picker');
  var note = document.getElementById('timeline-note');
  function showKey(i) {
    var k = tl.keys[i];
    if (!k) { return; }
    draw(tl.id, k.option, tl.dims);
    if (note) { note.textContent = k.note || ''; }
  }
  if (picker && tl.keys && tl.keys.length) {
    picker.addEventListener('change', function () { showKey(Number(picker.value)); });
    showKey(0);
  }

  document.querySelectorAll('button.reset').forEach(function (b) {
    b.addEventListener('click', function () {
      var c = instances[b.getAttribute('data-chart')];
      if (c) { c.dispatchAction({ type: 'dataZoom', start: 0, end: 100 }); }
    });
  });
  document.querySelectorAll('button.show-key').forEach(function (b) {
    b.addEventListener('click', function () {
      var i = Number(b.getAttribute('data-key'));
      if (picker) { picker.value = String(i); }
      showKey(i);
      document.getElementById('timeline').scrollIntoView();
    });
  });

  // The transaction timeline: focus on one anomaly's transactions (the
  // picker, the instances' buttons), and go from a marked bar to its
  // anomaly's explanation.
  var focusPicker = document.getElementById('txn-focus');
  function setFocus(i) {
    var c = txn && instances[txn.id];
    if (!c) { return; }
    focus = i;
    if (focusPicker) { focusPicker.value = String(i); }
    c.setOption({ series: txnItems.map(function (items) { return { renderItem: txnRender(items) }; }) });
    var mk = txn.marks[i];
    if (mk) {
      var pad = Math.max((mk.to - mk.from) * 0.6, 1e-9);
      c.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, startValue: mk.from - pad, endValue: mk.to + pad });
    } else {
      c.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, start: 0, end: 100 });
    }
  }
  if (txn && instances[txn.id]) {
    if (focusPicker) {
      focusPicker.addEventListener('change', function () { setFocus(Number(focusPicker.value)); });
    }
    instances[txn.id].on('click', function (p) {
      var m = p.data && p.data.m;
      if (!m || !m.length) { return; }
      var target = document.getElementById(txn.marks[m[0]].target);
      if (target) { target.scrollIntoView(); }
    });
  }
  document.querySelectorAll('button.show-txns').forEach(function (b) {
    b.addEventListener('click', function () {
      var t = b.getAttribute('data-target');
      for (var i = 0; txn && i < txn.marks.length; i++) {
        if (txn.marks[i].target === t) {
          setFocus(i);
          document.getElementById('txn-timeline').scrollIntoView();
          return;
        }
      }
    });
  });
  window.addEventListener('resize', function () {
    Object.keys(instances).forEach(function (id) { instances[id].resize(); });
  });
}());
