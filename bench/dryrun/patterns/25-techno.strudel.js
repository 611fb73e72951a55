// bench/dryrun: techno, 136 bpm, in Eb
setcpm(136/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR707").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR707").room(.2)
$: s("hh*16").bank("RolandTR707").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: a soundfont bass, syncopated
$: note("eb2 ~ [~ eb2] ~ eb2 [~ eb3] ~ eb2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_lead_2_sawtooth")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("sawtooth")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: a soundfont melody with a call and response
$: note("<[eb4 eb5] [eb5 eb4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
