// The station's page: plain DOM, no framework, no build step. Every text that comes from outside (device names,
// file names, messages) reaches the page through textContent, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { catalog: [], uploads: [], devices: new Map(), jobs: new Map() };

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

async function api(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({ message: "the station answered " + response.status }));
  if (!response.ok) {
    const error = new Error(body.message || "the station answered " + response.status);
    error.exitStatus = body.exit_status;
    throw error;
  }
  return body;
}

const errorText = (error) =>
  "Error: " + error.message + (error.exitStatus !== undefined ? " (exit status " + error.exitStatus + ")" : "");

function formatRate(bytesPerSecond) {
  const tenths = Math.round(bytesPerSecond / 100);
  return Math.floor(tenths / 10) + "." + (tenths % 10) + " kB/s";
}

// Firmware: the catalog, then the files sent to the station.

function renderFirmwareOptions(selected) {
  const select = $("firmware");
  select.replaceChildren();
  const catalog = element("optgroup", { label: "Catalog" });
  for (const item of state.catalog) {
    catalog.append(element("option", { value: item.id }, item.title + " (" + item.id + ")"));
  }
  select.append(catalog);
  if (state.uploads.length > 0) {
    const files = element("optgroup", { label: "Files" });
    for (const upload of state.uploads) files.append(element("option", { value: upload.id }, upload.name));
    select.append(files);
  }
  if (selected) select.value = selected;
}

function showInfo(info) {
  const list = element("dl", { class: "info" });
  const add = (term, value) => list.append(element("dt", {}, term), element("dd", {}, value));
  add("Name", info.name);
  add("Size", info.size + " bytes");
  add("Protocol", info.protocol === "smp" ? "SMP (MCUmgr, MCUboot)" : "nRF5 DFU");
  for (const part of info.parts || []) {
    add("Part", part.type + ", " + part.size + " bytes" +
      (part.init_packet_size ? ", init packet " + part.init_packet_size + " bytes" : "") +
      (part.version ? ", version " + part.version : ""));
  }
  if (info.mcuboot) {
    add("Version", info.mcuboot.version);
    if (info.mcuboot.sha256) add("SHA-256", info.mcuboot.sha256);
  }
  $("firmware-info").replaceChildren(element("h3", {}, "Info"), list);
}

async function showSelectedFirmware() {
  const id = $("firmware").value;
  $("firmware-error").textContent = "";
  if (!id) return;
  try {
    showInfo(await api("api/firmware/" + encodeURIComponent(id)));
  } catch (error) {
    $("firmware-info").replaceChildren();
    $("firmware-error").textContent = errorText(error);
  }
}

async function sendFile(file) {
  $("firmware-error").textContent = "";
  $("firmware-info").replaceChildren(element("p", { class: "hint" }, "Checking " + file.name + "…"));
  try {
    const info = await api("api/firmware?name=" + encodeURIComponent(file.name), {
      method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: file,
    });
    state.uploads.push({ id: info.id, name: info.name });
    renderFirmwareOptions(info.id);
    showInfo(info);
  } catch (error) {
    $("firmware-info").replaceChildren();
    $("firmware-error").textContent = errorText(error);
  }
}

// Devices: one checkbox each, kept across refreshes so that focus and choices stay.

function deviceLabel(device) {
  const parts = [device.label];
  if (device.name) parts.push(device.name);
  if (device.rssi !== null) parts.push(device.rssi + " dBm");
  return parts.join(" · ");
}

async function refreshDevices() {
  let answer;
  try {
    answer = await api("api/devices");
  } catch (error) {
    $("bluetooth-status").textContent = errorText(error);
    return;
  }
  const list = $("devices");
  const seen = new Set();
  for (const device of answer.devices) {
    seen.add(device.id);
    const key = JSON.stringify(device);
    const known = state.devices.get(device.id);
    if (known && known.key === key) continue;
    const checkbox = element("input", { type: "checkbox", id: "device-" + device.id, value: device.id });
    if (known) checkbox.checked = known.checkbox.checked;
    const label = element("label", { for: checkbox.id }, deviceLabel(device));
    for (const protocol of device.protocols) label.append(" ", element("span", { class: "tag" }, protocol.toUpperCase()));
    const item = element("li");
    item.append(checkbox, " ", label);
    if (known) known.item.replaceWith(item); else list.append(item);
    state.devices.set(device.id, { key, item, checkbox });
  }
  for (const [id, known] of state.devices) {
    if (!seen.has(id)) { known.item.remove(); state.devices.delete(id); }
  }
  const bluetooth = answer.bluetooth;
  $("bluetooth-status").textContent = {
    off: "Bluetooth: not scanning.",
    starting: "Bluetooth: starting a scan…",
    scanning: "Bluetooth: scanning with " + bluetooth.message + ".",
    unavailable: "Bluetooth: " + bluetooth.message,
  }[bluetooth.state] || "";
}

// Jobs: polled, so that every tab and every browser sees the same list; each job one list item, updated in place.

function jobStatus(job) {
  switch (job.state) {
    case "running": return "running";
    case "confirmed": return "confirmed: " + job.message;
    case "completed": return "completed, not confirmed: " + job.message;
    default: return job.state + ": Error: " + job.message + " (exit status " + job.exit_status + ")";
  }
}

function renderJob(job) {
  let view = state.jobs.get(job.id);
  if (!view) {
    const item = element("li", { id: "job-" + job.id });
    const head = element("div", { class: "job-head" });
    const title = element("h3", {}, "Job " + job.id + ": " + job.firmware + " → " + job.device_label);
    const cancel = element("button", { type: "button", class: "secondary", "aria-label": "Cancel job " + job.id },
      "Cancel");
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      try { await api("api/jobs/" + job.id + "/cancel", { method: "POST" }); } catch (error) {
        $("update-status").textContent = errorText(error);
      }
      poll();
    });
    head.append(title, cancel);
    const bar = element("div", {
      class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": "0",
      "aria-label": "Job " + job.id + " progress",
    });
    const fill = element("div", { class: "fill" });
    bar.append(fill);
    const detail = element("p", { class: "detail" });
    const status = element("p", { class: "status", role: "status" });
    item.append(head, bar, detail, status);
    view = { item, cancel, bar, fill, detail, status };
    state.jobs.set(job.id, view);
  }
  const progress = job.progress;
  let percent = 0;
  if (job.state === "confirmed" || job.state === "completed") percent = 100;
  else if (progress && progress.total_bytes > 0) {
    percent = Math.floor(progress.bytes_confirmed * 100 / progress.total_bytes);
  }
  view.item.className = job.state;
  view.bar.setAttribute("aria-valuenow", String(percent));
  view.fill.style.width = percent + "%";
  const detail = progress
    ? "part " + progress.part + "/" + progress.parts + " · " + progress.phase + " · " + progress.bytes_confirmed +
      "/" + progress.total_bytes + " bytes" + (progress.bytes_per_second ? " · " + formatRate(progress.bytes_per_second) : "")
    : "starting";
  view.detail.textContent = detail + " · " + (job.elapsed_ms / 1000).toFixed(1) + " s";
  const status = jobStatus(job);
  if (view.status.textContent !== status) view.status.textContent = status;
  view.cancel.hidden = job.state !== "running";
  return view.item;
}

let pollTimer;
async function poll() {
  clearTimeout(pollTimer);
  let running = false;
  try {
    const answer = await api("api/jobs");
    const list = $("jobs");
    answer.jobs.forEach((job, index) => {
      const item = renderJob(job);
      if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
      running = running || job.state === "running";
    });
    $("no-jobs").hidden = answer.jobs.length > 0;
  } catch (error) {
    $("update-status").textContent = errorText(error);
  }
  pollTimer = setTimeout(poll, running ? 250 : 1500);
}

async function update() {
  const devices = [...state.devices.values()].filter((known) => known.checkbox.checked).map((known) => known.checkbox.value);
  const firmware = $("firmware").value;
  const status = $("update-status");
  if (!firmware) { status.textContent = "Choose firmware first."; return; }
  if (devices.length === 0) { status.textContent = "Choose at least one device."; return; }
  status.textContent = "Starting…";
  try {
    const answer = await api("api/jobs", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ firmware, devices }),
    });
    status.textContent = "Started " + answer.jobs.map((job) => "job " + job.id).join(", ") + ".";
  } catch (error) {
    status.textContent = errorText(error);
  }
  poll();
}

async function start() {
  $("firmware").addEventListener("change", showSelectedFirmware);
  $("firmware-file").addEventListener("change", (event) => {
    if (event.target.files.length > 0) sendFile(event.target.files[0]);
  });
  const zone = $("drop-zone");
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    if (event.dataTransfer.files.length > 0) sendFile(event.dataTransfer.files[0]);
  });
  $("update").addEventListener("click", update);
  try {
    state.catalog = (await api("api/catalog")).firmware;
    state.uploads = (await api("api/firmware")).firmware.map((upload) => ({ id: upload.id, name: upload.name }));
    renderFirmwareOptions();
    await showSelectedFirmware();
  } catch (error) {
    $("firmware-error").textContent = errorText(error);
  }
  await refreshDevices();
  setInterval(refreshDevices, 3000);
  poll();
}

start();
