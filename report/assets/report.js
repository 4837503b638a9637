// hindsight report page script. It reads the page's data (JSON in the
// script element of type application/json), draws the charts with the
// embedded ECharts, and wires the key picker and buttons. Strings from the
// history only ever reach the page through textContent: tooltips are built
// as DOM nodes, never as HTML.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('hindsight-data').textContent);
  var instances = {};

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

  function draw(id, option, dims) {
    var node = document.getElementById(id);
    if (!node || !option) { return null; }
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
  window.addEventListener('resize', function () {
    Object.keys(instances).forEach(function (id) { instances[id].resize(); });
  });
}());
