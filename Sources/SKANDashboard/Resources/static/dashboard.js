// Draws each panel's chart from the JSON the server embedded beside its table, with Chart.js when it is
// installed; the live page polls the store's counters. Without this script every number is still in the tables.
"use strict";
(function () {
  // Okabe and Ito's palette: distinguishable with the common colour-vision deficiencies.
  var palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];
  var number = new Intl.NumberFormat("en-US");
  var percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

  function draw(spec, canvas) {
    var format = function (value) { return spec.percent ? percent.format(value) : number.format(value); };
    var datasets = spec.datasets.map(function (dataset, index) {
      var colour = palette[index % palette.length];
      return { label: dataset.label, data: dataset.data, backgroundColor: colour, borderColor: colour,
               fill: false, tension: 0, pointRadius: spec.labels.length > 60 ? 0 : 2 };
    });
    new Chart(canvas, {
      type: spec.type,
      data: { labels: spec.labels, datasets: datasets },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: { stacked: spec.stacked },
          y: { stacked: spec.stacked, beginAtZero: true, title: { display: true, text: spec.axis },
               ticks: { callback: format } }
        },
        plugins: {
          legend: { display: datasets.length > 1 },
          tooltip: { callbacks: { label: function (item) { return item.dataset.label + ": " + format(item.parsed.y); } } }
        }
      }
    });
    canvas.setAttribute("data-rendered", "true");
  }

  if (typeof Chart !== "undefined") {
    document.querySelectorAll("script[data-chart-for]").forEach(function (script) {
      var canvas = document.querySelector("canvas[data-chart='" + script.getAttribute("data-chart-for") + "']");
      if (canvas) { draw(JSON.parse(script.textContent), canvas); }
    });
  }

  var live = document.querySelector("[data-tile='live-postbacks']");
  if (live) {
    var previous = null;
    var set = function (name, text) {
      var element = document.querySelector("[data-tile='" + name + "']");
      if (element) { element.textContent = text; }
    };
    var poll = function () {
      fetch("/live.json" + window.location.search, { cache: "no-store" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (now) {
          if (!now) { return; }
          set("live-postbacks", number.format(now.postbacks));
          set("live-refused", number.format(now.refused));
          if (previous && now.at > previous.at) {
            var seconds = (now.at - previous.at) / 1000;
            set("live-rate", number.format(Math.round((now.postbacks - previous.postbacks) / seconds)));
            set("live-refused-rate", number.format(Math.round((now.refused - previous.refused) / seconds)));
          }
          previous = now;
        })
        .catch(function () { /* the next poll tries again */ });
    };
    poll();
    window.setInterval(poll, 5000);
  }
})();
