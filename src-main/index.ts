// The Electron main process, kept thin: every decision lives in plain modules that the tests
// run without Electron (ports, data folder, shutdown order, sessions).
import { BrowserWindow, Menu, app, clipboard, dialog, shell, type MenuItemConstructorOptions } from 'electron';
import { loadConfig } from '../src-server/config';
import { startAppServer, type AppServer } from './app-server';
import { DataDirInUseError } from '../src-server/store/data-dir-lock';
import { DamagedDatabaseError } from '../src-server/store/database-check';
import { EXIT_DATA_DIR_REFUSED, READY_PREFIX } from './electron-process';
import { openSession } from './session';
import { createShutdown } from './shutdown';

let mainWindow: BrowserWindow | null = null;
let running: AppServer | null = null;

const shutdown = createShutdown({
  closeWindows: () => BrowserWindow.getAllWindows().forEach((w) => w.destroy()),
  closeServer: async () => running?.server.close(),
  exit: (code) => app.exit(code),
  log: (m) => console.error(m),
});

function createWindow(url: string, origin: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'promptledger',
    show: false,
    webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true, webSecurity: true },
  });
  win.once('ready-to-show', () => win.show());
  // The window shows only our own origin; links elsewhere open in the user's browser.
  win.webContents.setWindowOpenHandler(({ url: target }) => {
    if (/^https?:/.test(target)) void shell.openExternal(target);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, target) => {
    if (new URL(target).origin === origin) return;
    event.preventDefault();
    if (/^https?:/.test(target)) void shell.openExternal(target);
  });
  void win.loadURL(url);
  return win;
}

function buildMenu(server: AppServer, dataDir: string): void {
  const connect: MenuItemConstructorOptions[] = [
    { label: `Base URL: ${server.server.url}`, click: () => clipboard.writeText(server.server.url) },
    { label: 'Copy base URL', accelerator: 'CmdOrCtrl+Shift+U', click: () => clipboard.writeText(server.server.url) },
    { label: `Copy API key (${server.apiKey.slice(0, 10)}…)`, accelerator: 'CmdOrCtrl+Shift+K', click: () => clipboard.writeText(server.apiKey) },
    {
      label: 'Copy environment for a local app',
      click: () => clipboard.writeText(`PROMPTLAYER_BASE_URL=${server.server.url}\nPROMPTLAYER_API_KEY=${server.apiKey}\n`),
    },
    { type: 'separator' },
    { label: 'Open data folder', click: () => void shell.openPath(dataDir) },
  ];
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { label: 'File', submenu: [{ label: 'Quit', accelerator: 'CmdOrCtrl+Q', click: () => void shutdown('quit') }] },
    { role: 'editMenu' },
    { label: 'Connect', submenu: connect },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

async function start(): Promise<void> {
  let dataDir: string;
  try {
    // `npm start` passes its flags here as environment variables (src-main/start.ts).
    const config = loadConfig('start', [], process.env);
    dataDir = config.dataDir;
    running = await startAppServer({ config });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // One line for `npm start`, which falls back to the headless server when this process dies,
    // unless the data dir itself was refused (held by another server, damaged): headless would
    // fail the same way, so it passes the message on instead.
    console.error(`promptledger: ${message}`);
    const refused = error instanceof DataDirInUseError || error instanceof DamagedDatabaseError;
    // A desktop app started from its icon has no terminal: the message must be on screen.
    if (refused) dialog.showErrorBox('promptledger cannot open its data', message);
    app.exit(refused ? EXIT_DATA_DIR_REFUSED : 3);
    return;
  }
  const { url } = running.server;
  console.log(`${READY_PREFIX}${url}`);
  const session = await openSession(url, running.apiKey);
  buildMenu(running, dataDir);
  mainWindow = createWindow(`${url}/#token=${encodeURIComponent(session.token)}`, new URL(url).origin);
}

if (!app.requestSingleInstanceLock()) {
  // A second launch only brings the first window forward (see 'second-instance').
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => void shutdown('window closed'));
  app.on('before-quit', (event) => {
    event.preventDefault();
    void shutdown('quit');
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      console.error(`promptledger: ${error instanceof Error ? error.message : String(error)}`);
      void shutdown('start-up failed');
    });
}
