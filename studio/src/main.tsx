// The Studio's entry point: its stylesheet and the app mounted into index.html's #app.
import { render } from "preact";
import { App } from "./app";
import "./styles.css";

render(<App />, document.getElementById("app")!);
